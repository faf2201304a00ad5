/**
 * What the fold of the append log costs the writers of a big FileDurability journal: `size`
 * entries loaded first, then 8 writers write `writes` records in all with the default appendLog
 * options (a fold every 1,000 records), and the latency each write saw. A fold that held the
 * commits shows as a maximum about its length; one that runs beside the appends does not.
 * Run: node --import ./test-utils/ts-loader.mjs bench/file-fold-stall.ts [size=100000] [writes=8000]
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { FileDurability } from '../src/backends/file/index.js'
import type { KvOp } from '../src/core/durability/journal/kv.js'

const [size, writes] = [100_000, 8_000].map((fallback, n) => Number(process.argv[2 + n] ?? fallback)) as [number, number]
const WRITERS = 8

/** A record about the size of a journaled inbound message (~450 bytes of JSON). */
function record(key: string): KvOp {
  const now = Date.now()
  const value = {
    id: key,
    state: 'done',
    chatId: '4915112345678@s.whatsapp.net',
    event: { text: 'a message of ordinary length, '.repeat(8) },
  }
  return { op: 'put', collection: 'inbox', key, expectVersion: 0, value, state: 'done', stateTime: now, due: null }
}

const dir = await mkdtemp(join(tmpdir(), 'botmesh-fold-'))
const path = join(dir, 'durable.json')
try {
  const loading = await FileDurability.open(path, { appendLog: { compactEvery: 1e9, compactBytes: 2 ** 40, fsync: false } })
  for (let n = 0; n < size; n += 1_000) await loading.kv.write(Array.from({ length: 1_000 }, (_, i) => record(`load-${n + i}`)))
  await loading.close()

  const durability = await FileDurability.open(path, { appendLog: true })
  const logSeqAtStart = durability.stats().logSeq
  const latencies: number[] = []
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      for (let n = next++; n < writes; n = next++) {
        const sent = performance.now()
        await durability.kv.write([record(`w-${n}`)])
        latencies.push(performance.now() - sent)
      }
    }),
  )
  const seconds = (performance.now() - started) / 1_000
  await durability.kv.flush()
  const folded = durability.stats().logSeq - logSeqAtStart
  await durability.close()
  latencies.sort((a, b) => a - b)
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))]!.toFixed(2)
  console.log(
    `${size} entries, ${WRITERS} writers, ${writes} writes: ${Math.round(writes / seconds)} writes/s, ` +
      `latency ms p50 ${at(0.5)} p99 ${at(0.99)} max ${latencies[latencies.length - 1]!.toFixed(2)}, ` +
      `${folded} log records folded during the run (node ${process.version})`,
  )
} finally {
  await rm(dir, { recursive: true, force: true })
}
