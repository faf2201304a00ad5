/**
 * The queue a user would pick instead on Redis: BullMQ (a devDependency), a Worker with a no-op
 * processor at the given concurrency, on the same Redis as botmesh. The jobs are added up front
 * (addBulk, default job options: completed jobs are kept); the clock runs from the end of the
 * warm-up jobs to the last completion, so jobs/s is what the worker drains. One job is half a
 * botmesh message (a message is an inbound journaled and a reply through the outbox).
 * Everything lives under a random key prefix, obliterated (and swept) when the run ends.
 */
import { randomBytes } from 'node:crypto'
import { addInBatches, drainClock, peerFigures, versionOf, WARMUP_PER_SLOT } from './peer-drain.js'

/** Jobs added per addBulk call. */
const ADD_BATCH = 1_000
/** Keys removed per SCAN page when sweeping the prefix. */
const SWEEP_COUNT = 1_000

/** The connection options BullMQ takes, from a redis:// URL. */
function connectionOf(url) {
  const parsed = new URL(url)
  const db = parsed.pathname.replace(/^\//, '')
  return {
    host: parsed.hostname || '127.0.0.1',
    port: Number(parsed.port || 6379),
    ...(parsed.username && { username: decodeURIComponent(parsed.username) }),
    ...(parsed.password && { password: decodeURIComponent(parsed.password) }),
    ...(db && { db: Number(db) }),
    ...(parsed.protocol === 'rediss:' && { tls: {} }),
    maxRetriesPerRequest: null,
  }
}

/** Jobs/s of a no-op BullMQ worker draining `jobs` jobs at `concurrency`. */
export async function measureBullmq({ url, jobs, concurrency, timeoutMs }) {
  const { Queue, Worker } = await import('bullmq')
  const connection = connectionOf(url)
  const prefix = `botmesh-bench-bullmq-${randomBytes(6).toString('hex')}`
  const queue = new Queue('peer', { connection, prefix })
  let worker
  try {
    await queue.waitUntilReady()
    const warmup = WARMUP_PER_SLOT * concurrency
    await addInBatches(warmup + jobs, ADD_BATCH, (from, size) =>
      queue.addBulk(Array.from({ length: size }, (_, i) => ({ name: 'noop', data: { n: from + i } }))),
    )
    const clock = drainClock({ label: `BullMQ at concurrency ${concurrency}`, warmup, jobs, timeoutMs })
    worker = new Worker('peer', async () => {}, { connection, prefix, concurrency, autorun: false })
    worker.on('error', (error) => clock.fail(error))
    worker.on('completed', () => clock.handled())
    worker.run().catch((error) => clock.fail(error))
    const seconds = await clock.seconds
    return peerFigures(`BullMQ ${versionOf('bullmq')} no-op worker`, { jobs, concurrency, seconds })
  } finally {
    await cleanup(queue, worker, prefix, url)
  }
}

/** Closes the worker, obliterates the queue and sweeps what is left under the prefix; always closes the queue. */
async function cleanup(queue, worker, prefix, url) {
  try {
    await worker?.close(true).catch(() => {})
    await queue.obliterate({ force: true }).catch(() => {})
    await sweep(url, `${prefix}:*`)
  } finally {
    await queue.close().catch(() => {})
  }
}

/** Deletes every key matching `pattern` (BullMQ's obliterate leaves none; this makes sure). */
async function sweep(url, pattern) {
  const { Redis } = await import('ioredis')
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 })
  try {
    await client.connect()
    let cursor = '0'
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', SWEEP_COUNT)
      if (keys.length > 0) await client.del(...keys)
      cursor = next
    } while (cursor !== '0')
  } finally {
    client.disconnect()
  }
}
