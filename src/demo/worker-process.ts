/**
 * The demo's bot processes, seen from the demo: starts the worker (worker.ts) with its options and
 * reads its lines: the story's lines, its steps (`STEP`), the point of its crash (`CRASH`) and its
 * summaries (`SUMMARY`).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { WorkerOptions } from './worker-story.js'

/** What a worker's lines are told to. */
export interface WorkerListener {
  /** A line of the story. */
  print(line: string): void
  /** A step of the story begins. */
  step?(name: string, text: string): void
  /** The first run's story reached its crash. */
  crash?(): void
  /** The story's metrics (when it was told, and when live traffic stopped). */
  summary?(metrics: Record<string, number>): void
}

/** A running worker. */
export interface Worker {
  child: ChildProcess
  /** Resolves with its last summary's metrics once it exited (killed with SIGKILL, or done). */
  exited: Promise<{ metrics: Record<string, number> }>
}

export function startWorker(file: string, options: WorkerOptions, listener: WorkerListener): Worker {
  const child = spawn(process.execPath, [...workerCommand(), file, JSON.stringify(options)], { stdio: ['pipe', 'pipe', 'inherit'] })
  // A worker that exited before it read a hurry is no failure.
  child.stdin?.on('error', () => undefined)
  let metrics: Record<string, number> = {}
  let buffered = ''
  child.stdout!.setEncoding('utf8')
  child.stdout!.on('data', (chunk: string) => {
    buffered += chunk
    const lines = buffered.split('\n')
    buffered = lines.pop() ?? ''
    for (const line of lines) {
      if (line.startsWith('SUMMARY ')) {
        metrics = (JSON.parse(line.slice(8)) as { metrics: Record<string, number> }).metrics
        listener.summary?.(metrics)
      } else if (line.startsWith('STEP ')) {
        const [name = '', text = ''] = line.slice(5).split('\t')
        listener.step?.(name, text)
      } else if (line === 'CRASH') listener.crash?.()
      else listener.print(line)
    }
  })
  const exited = new Promise<{ metrics: Record<string, number> }>((resolvePromise, reject) => {
    child.on('error', reject)
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL' || code === 0) resolvePromise({ metrics })
      else reject(new Error(`the demo bot exited with ${signal ?? `code ${code}`}`))
    })
  })
  return { child, exited }
}

/** The worker script: built (dist/demo/worker.js) or, in this repository's tests, the TypeScript source. */
function workerCommand(): string[] {
  let dir = dirname(fileURLToPath(import.meta.url))
  for (let up = 0; up < 4; up++) {
    for (const candidate of [join(dir, 'demo', 'worker.js'), join(dir, 'dist', 'demo', 'worker.js')])
      if (existsSync(candidate)) return [candidate]
    const source = join(dir, 'worker.ts')
    if (existsSync(source)) return ['--import', join(dir, '..', '..', 'test-utils', 'ts-loader.mjs'), source]
    dir = dirname(dir)
  }
  throw new Error('cannot find the demo worker (dist/demo/worker.js): run npm run build first')
}
