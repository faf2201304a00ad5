/**
 * SharedFileEventJournal with several processes on one file: aggregate appends per second and the
 * mean time per append with 1 and 3 processes appending at once (appendLog off and on, fsync off),
 * and claims per second of 3 workers draining the journal (claim + complete per record).
 * Run: node --import ./test-utils/ts-loader.mjs bench/events-processes.ts [appendsPerProcess=300]
 */
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { SharedFileEventJournal } from '../src/events/index.js'

const perProcess = Number(process.argv[2] ?? 300)
const child = fileURLToPath(new URL('./events-processes-child.ts', import.meta.url))
const loader = fileURLToPath(new URL('../test-utils/ts-loader.mjs', import.meta.url))

function run(args: object): Promise<string> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', loader, child, JSON.stringify(args)], { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    proc.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk))
    proc.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`child exited ${code}`))))
  })
}

const dir = await mkdtemp(join(tmpdir(), 'botmesh-bench-procs-'))
try {
  console.log(
    `${'appendLog'.padEnd(10)} ${'what'.padEnd(22)} ${'processes'.padStart(9)} ${'ops'.padStart(6)} ${'ops/s'.padStart(8)} ${'ms/op per process'.padStart(18)}`,
  )
  for (const appendLog of [false, true]) {
    for (const processes of [1, 3]) {
      const path = join(dir, `append-${appendLog}-${processes}.json`)
      const started = performance.now()
      await Promise.all(
        Array.from({ length: processes }, (_, n) => run({ path, appendLog, mode: 'append', count: perProcess, name: `p${n}` })),
      )
      const seconds = (performance.now() - started) / 1000
      const ops = processes * perProcess
      console.log(
        `${String(appendLog).padEnd(10)} ${'append'.padEnd(22)} ${String(processes).padStart(9)} ${String(ops).padStart(6)} ${(ops / seconds).toFixed(0).padStart(8)} ${((seconds * 1000) / perProcess).toFixed(2).padStart(18)}`,
      )
    }
    const path = join(dir, `drain-${appendLog}.json`)
    const journal = await SharedFileEventJournal.open(path, { appendLog: appendLog ? { fsync: false } : false })
    const total = 3 * perProcess
    for (let n = 0; n < total; n += 500)
      await journal.append(Array.from({ length: Math.min(500, total - n) }, (_, i) => ({ id: `e${n + i}`, eventType: 'job' })))
    await journal.close()
    const started = performance.now()
    const done = await Promise.all(Array.from({ length: 3 }, (_, n) => run({ path, appendLog, mode: 'drain', name: `w${n}` })))
    const seconds = (performance.now() - started) / 1000
    const completed = done.reduce((sum, out) => sum + Number(out.trim()), 0)
    console.log(
      `${String(appendLog).padEnd(10)} ${'claim + complete'.padEnd(22)} ${'3'.padStart(9)} ${String(completed).padStart(6)} ${(completed / seconds).toFixed(0).padStart(8)} ${'(each record once)'.padStart(18)}`,
    )
    if (completed !== total) throw new Error(`${completed} records completed, ${total} appended`)
  }
  console.log('process start-up (~0.5 s per child here) is included in the times')
} finally {
  await rm(dir, { recursive: true, force: true })
}
