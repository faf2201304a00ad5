/**
 * The cost of one write to an events journal at 1,000 and 10,000 records, same run:
 * FileEventJournal (the whole file rewritten per write) against SharedFileEventJournal without
 * appendLog (reread when changed, rewritten per write, under the mutex) and with appendLog (one
 * log line per write under the mutex, a fold every 1000 writes), with fsync off and on.
 * A write here is one append of an event of about 450 bytes, the size of a journaled message.
 * Run: node --import ./test-utils/ts-loader.mjs bench/events-write-cost.ts [sizes=1000,10000]
 */
import { copyFile, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { FileEventJournal, SharedFileEventJournal, type AppendInput, type LeasedEventJournal } from '../src/events/index.js'

const sizes = (process.argv[2] ?? '1000,10000').split(',').map(Number)

const event = (id: string): AppendInput => ({
  id,
  channel: 'orders',
  eventType: 'order.created',
  payload: { chatId: '4915112345678@s.whatsapp.net', text: 'a message of ordinary length, '.repeat(12) },
})

interface Variant {
  name: string
  /** Writes measured: enough for the appendLog variants to pay one fold within them. */
  writes: (size: number) => number
  open(path: string): Promise<LeasedEventJournal>
}

const VARIANTS: Variant[] = [
  { name: 'FileEventJournal', writes: (size) => (size > 5_000 ? 100 : 300), open: (path) => FileEventJournal.open(path, { lock: true }) },
  {
    name: 'FileEventJournal (fsync)',
    writes: (size) => (size > 5_000 ? 100 : 300),
    open: (path) => FileEventJournal.open(path, { lock: true, fsync: true }),
  },
  { name: 'Shared', writes: (size) => (size > 5_000 ? 100 : 300), open: (path) => SharedFileEventJournal.open(path) },
  {
    name: 'Shared (fsync)',
    writes: (size) => (size > 5_000 ? 100 : 300),
    open: (path) => SharedFileEventJournal.open(path, { fsync: true }),
  },
  { name: 'Shared appendLog', writes: () => 1_000, open: (path) => SharedFileEventJournal.open(path, { appendLog: { fsync: false } }) },
  { name: 'Shared appendLog (fsync)', writes: () => 1_000, open: (path) => SharedFileEventJournal.open(path, { appendLog: true }) },
]

/** A journal file of `records` events, folded into its snapshot. */
async function prefill(path: string, records: number): Promise<void> {
  const journal = await FileEventJournal.open(path, { lock: true })
  for (let n = 0; n < records; n += 1_000)
    await journal.append(Array.from({ length: Math.min(1_000, records - n) }, (_, i) => event(`fill-${n + i}`)))
  await journal.close()
}

async function measure(
  variant: Variant,
  path: string,
  size: number,
): Promise<{ writes: number; median: number; mean: number; p99: number }> {
  const journal = await variant.open(path)
  await journal.append(event('warm-up'))
  const times: number[] = []
  const writes = variant.writes(size)
  for (let n = 0; n < writes; n++) {
    const started = performance.now()
    await journal.append(event(`w-${n}`))
    times.push(performance.now() - started)
  }
  await journal.close()
  const mean = times.reduce((a, b) => a + b, 0) / times.length
  times.sort((a, b) => a - b)
  return { writes, median: times[Math.floor(times.length / 2)]!, mean, p99: times[Math.floor(times.length * 0.99)]! }
}

const dir = await mkdtemp(join(tmpdir(), 'botmesh-bench-events-'))
const fmt = (n: number) => n.toFixed(3).padStart(10)
try {
  console.log(
    `${'records'.padEnd(8)} ${'journal'.padEnd(26)} ${'writes'.padStart(6)} ${'median ms'.padStart(10)} ${'mean ms'.padStart(10)} ${'p99 ms'.padStart(10)}`,
  )
  for (const size of sizes) {
    const seed = join(dir, `seed-${size}.json`)
    await prefill(seed, size)
    for (const [n, variant] of VARIANTS.entries()) {
      const path = join(dir, `run-${size}-${n}.json`)
      await copyFile(seed, path)
      const figures = await measure(variant, path, size)
      console.log(
        `${String(size).padEnd(8)} ${variant.name.padEnd(26)} ${String(figures.writes).padStart(6)} ${fmt(figures.median)} ${fmt(figures.mean)} ${fmt(figures.p99)}`,
      )
    }
  }
  console.log('mean includes, for appendLog, the fold of the log into the file that every 1000th write pays')
} finally {
  await rm(dir, { recursive: true, force: true })
}
