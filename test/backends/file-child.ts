/** Runs test/fixtures/file-journal-child.ts in a real child process, and waits on what it prints. */
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../..', import.meta.url))

/** A running child and the lines it printed so far. */
export interface JournalChild {
  process: ChildProcess
  lines: string[]
  /** Resolves with the first printed line that matches, failing after `timeoutMs`. */
  waitForLine(match: (line: string) => boolean, timeoutMs?: number): Promise<string>
  /** Resolves once the child exited, with its exit code or signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  stderr(): string
}

/** Starts the child with `command` on the journal at `path`. */
export function startJournalChild(command: 'hold' | 'write-loop', path: string, options: object = {}): JournalChild {
  const child = spawn(
    process.execPath,
    ['--import', './test-utils/ts-loader.mjs', 'test/fixtures/file-journal-child.ts', command, path, JSON.stringify(options)],
    {
      cwd: root,
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  )
  // A child that already exited (the loser of a lock race) makes a late write to its stdin fail with EPIPE: harmless here.
  child.stdin.on('error', () => {})
  const lines: string[] = []
  let pending = ''
  let stderr = ''
  child.stdout!.setEncoding('utf8')
  child.stdout!.on('data', (chunk: string) => {
    pending += chunk
    const parts = pending.split('\n')
    pending = parts.pop()!
    lines.push(...parts)
  })
  child.stderr!.setEncoding('utf8')
  child.stderr!.on('data', (chunk: string) => (stderr += chunk))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  )
  let done = false
  void exited.then(() => (done = true))
  return {
    process: child,
    lines,
    exited,
    stderr: () => stderr,
    async waitForLine(match, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const found = lines.find(match)
        if (found !== undefined) return found
        if (done) await new Promise((resolve) => setImmediate(resolve)) // let the last data events land
        if (done && !lines.some(match)) throw new Error(`the child exited without printing the line; stderr: ${stderr}`)
        if (Date.now() > deadline)
          throw new Error(
            `no matching line from the child within ${timeoutMs} ms; printed: ${lines.slice(-5).join(' | ')}; stderr: ${stderr}`,
          )
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
    },
  }
}
