/**
 * The cost of one FileDurability write at 1,000 and at 100,000 records in the journal: appendLog
 * mode (fsync on, the default) against snapshot mode (fsync off, its default; and on), same run.
 * Also group commit: concurrent appendLog writes against one append + fsync per write done by hand.
 * Run: node --import ./test-utils/ts-loader.mjs bench/file-write-cost.ts [sizes=1000,100000]
 */
import { mkdtemp, open, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { FileDurability, type FileDurabilityOptions } from '../src/backends/file/index.js'
import type { KvOp } from '../src/core/durability/journal/kv.js'

const sizes = (process.argv[2] ?? '1000,100000').split(',').map(Number)
const BULK_OPS = 1_000

/** A record about the size of a journaled inbound message (~450 bytes of JSON). */
function record(key: string, expectVersion = 0): KvOp {
  const now = Date.now()
  return {
    op: 'put',
    collection: 'inbox',
    key,
    expectVersion,
    value: {
      id: key,
      kind: 'message',
      state: 'done',
      chatId: '4915112345678@s.whatsapp.net',
      provider: 'baileys',
      event: { text: 'a message of ordinary length, '.repeat(8) },
      attempts: 1,
      lease: null,
      createdAt: now,
      updatedAt: now,
    },
    state: 'done',
    stateTime: now,
    due: null,
  }
}

/**
 * Per-write latencies of `writes` sequential single-record writes, in ms, and then the time of a
 * fold of the log into the snapshot (what appendLog mode pays every compactEvery writes).
 */
async function measure(
  path: string,
  options: FileDurabilityOptions,
  writes: number,
  label: string,
): Promise<{ median: number; mean: number; p99: number; foldMs: number }> {
  const durability = await FileDurability.open(path, options)
  // Warm-up: the first fold encodes every entry; later folds only the entries written since.
  await durability.kv.write([record(`${label}-warm`)])
  await durability.compact()
  const times: number[] = []
  for (let n = 0; n < writes; n++) {
    const started = performance.now()
    await durability.kv.write([record(`${label}-${n}`)])
    times.push(performance.now() - started)
  }
  const started = performance.now()
  await durability.compact()
  const foldMs = performance.now() - started
  await durability.close()
  times.sort((a, b) => a - b)
  const mean = times.reduce((a, b) => a + b, 0) / times.length
  return { median: times[Math.floor(times.length / 2)]!, mean, p99: times[Math.floor(times.length * 0.99)]!, foldMs }
}

async function prefill(path: string, records: number): Promise<void> {
  const durability = await FileDurability.open(path, { appendLog: { compactEvery: 1e9, compactBytes: 2 ** 40, fsync: false } })
  for (let n = 0; n < records; n += BULK_OPS) {
    await durability.kv.write(Array.from({ length: Math.min(BULK_OPS, records - n) }, (_, i) => record(`fill-${n + i}`)))
  }
  await durability.close()
}

const rows: string[][] = [['records', 'mode', 'writes', 'median ms', 'mean ms', 'p99 ms']]
const fmt = (n: number) => n.toFixed(3)
const dir = await mkdtemp(join(tmpdir(), 'botmesh-bench-'))
try {
  for (const size of sizes) {
    const path = join(dir, `journal-${size}.json`)
    await prefill(path, size)
    const log = await measure(path, { appendLog: true }, 300, `log${size}`)
    rows.push([String(size), 'appendLog (fsync)', '300', fmt(log.median), fmt(log.mean), fmt(log.p99)])
    rows.push([String(size), '  + a fold every 1000 writes', '', '', fmt(log.mean + log.foldMs / 1000), `(fold ${fmt(log.foldMs)} ms)`])
    const snapshotWrites = size > 10_000 ? 10 : 100
    const snap = await measure(path, {}, snapshotWrites, `snap${size}`)
    rows.push([String(size), 'snapshot', String(snapshotWrites), fmt(snap.median), fmt(snap.mean), fmt(snap.p99)])
    const snapSync = await measure(path, { fsync: true }, snapshotWrites, `snapsync${size}`)
    rows.push([String(size), 'snapshot (fsync)', String(snapshotWrites), fmt(snapSync.median), fmt(snapSync.mean), fmt(snapSync.p99)])
  }
  console.log('one write, sequential, per journal size (same run):')
  for (const row of rows) console.log(row.map((cell, n) => (n < 2 ? cell.padEnd(n === 1 ? 30 : 9) : cell.padStart(10))).join(' '))

  // Group commit: writes/s with 64 concurrent writers vs one append + fsync per write by hand.
  const writes = 2_000
  const raw = await open(join(dir, 'raw.log'), 'a', 0o600)
  let started = performance.now()
  for (let n = 0; n < writes / 4; n++) {
    await raw.write(`${JSON.stringify(record(`raw-${n}`))}\n`)
    await raw.sync()
  }
  const rawRate = writes / 4 / ((performance.now() - started) / 1000)
  await raw.close()
  const durability = await FileDurability.open(join(dir, 'group.json'), { appendLog: true })
  started = performance.now()
  let next = 0
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (next < writes) await durability.kv.write([record(`group-${next++}`)])
    }),
  )
  const groupRate = writes / ((performance.now() - started) / 1000)
  await durability.close()
  console.log(
    `\ngroup commit: appendLog, 64 concurrent writers: ${groupRate.toFixed(0)} writes/s; one append + fsync per write by hand: ${rawRate.toFixed(0)} writes/s; ratio ${(groupRate / rawRate).toFixed(1)}x`,
  )
} finally {
  await rm(dir, { recursive: true, force: true })
}
