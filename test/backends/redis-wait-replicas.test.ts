/**
 * `waitReplicas` (replica-wait.ts) against a primary and a replica this file starts (spare ports,
 * their own dirs): each group commit is followed by one WAIT on the connection that wrote, so a
 * write resolves only once the replica has it; with the replica frozen (SIGSTOP) a write fails as
 * JOURNAL_UNAVAILABLE once `waitTimeoutMs` has passed, and its compare-and-set makes the retry safe.
 * Nothing here depends on a timer being punctual: the WAIT's timeout runs on the server, which
 * cannot answer before it, and the upper bound is a margin for a loaded machine.
 */
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RedisKeys, RedisKv } from '../../src/backends/redis/index.js'
import { ROOT_SCOPE, type KvOp, type KvPut } from '../../src/core/spi.js'
import {
  laneRested,
  randomPrefix,
  recordCommands,
  redisBinariesAvailable,
  startRedisServer,
  waitFor,
  confirmed,
  type RedisServer,
} from '../../test-utils/redis.js'

const WAIT_TIMEOUT_MS = 300
/** A failed write answers in about WAIT_TIMEOUT_MS; this bounds it on a machine at load 10+. */
const FAIL_WITHIN_MS = 10_000
/** The writes of the test that waits for batches: no freeze there, so a wait that holds at any load. */
const PATIENT_TIMEOUT_MS = 30_000

const available = await redisBinariesAvailable('waitReplicas on a private primary and replica')

function put(key: string, expectVersion = 0): KvPut {
  return { op: 'put', collection: 'inbox', key, expectVersion, value: { key }, state: 'pending', stateTime: 1_000, due: null }
}

describe.runIf(available)('waitReplicas on a primary with one replica', () => {
  const prefix = randomPrefix()
  const entries = new RedisKeys(prefix).collection(ROOT_SCOPE, 'inbox').entries
  let primary: RedisServer
  let replica: RedisServer
  let onReplica: Redis
  const clients: Redis[] = []

  beforeAll(async () => {
    primary = await startRedisServer()
    replica = await startRedisServer({ flags: ['--replicaof', '127.0.0.1', String(primary.port)] })
    onReplica = new Redis(replica.url)
    await waitFor('the replica to be in sync', async () => /master_link_status:up/.test(await onReplica.info('replication')), 60_000)
  }, 120_000)

  afterAll(async () => {
    if (replica) process.kill(replica.pid, 'SIGCONT')
    for (const client of [...clients, onReplica]) client?.disconnect()
    await Promise.all([primary?.stop(), replica?.stop()])
  })

  async function openKv(sent: string[], waitTimeoutMs = WAIT_TIMEOUT_MS): Promise<RedisKv> {
    const client = new Redis(primary.url)
    clients.push(client)
    recordCommands(client, sent)
    const kv = new RedisKv({ client, prefix, waitReplicas: 1, waitTimeoutMs })
    await kv.start()
    return kv
  }

  it('waits once per group commit, and a write resolves only once the replica has it', async () => {
    const sent: string[] = []
    const kv = await openKv(sent, PATIENT_TIMEOUT_MS)
    await kv.write([put('warm')])
    await laneRested()
    sent.length = 0
    const writes: (readonly KvOp[])[] = Array.from({ length: 20 }, (_, n) => [put(`together-${n}`)])
    const results = await Promise.all(writes.map((ops) => kv.write(ops)))
    expect(results.flat().every((result) => result.ok)).toBe(true)
    const scripts = sent.filter((name) => name === 'evalsha').length
    expect(scripts).toBeLessThan(writes.length)
    expect(sent.filter((name) => name === 'wait').length).toBe(scripts)
    expect(sent.filter((name) => name !== 'evalsha' && name !== 'wait')).toEqual([])
    const held = await onReplica.hmget(entries, ...writes.map((ops) => ops[0]!.key))
    expect(held.filter((envelope) => envelope === null)).toEqual([])
  })

  it('fails a write the frozen replica did not confirm as JOURNAL_UNAVAILABLE; its retry after the thaw is safe', async () => {
    const kv = await openKv([])
    await confirmed(() => kv.write([put('before-freeze')]))
    process.kill(replica.pid, 'SIGSTOP')
    try {
      const started = Date.now()
      const failure = await kv.write([put('in-freeze')]).then(
        () => undefined,
        (error: unknown) => error,
      )
      const took = Date.now() - started
      expect(failure).toMatchObject({ code: 'JOURNAL_UNAVAILABLE', message: expect.stringMatching(/0 of 1 replica\(s\).*waitReplicas/) })
      expect(took).toBeGreaterThanOrEqual(WAIT_TIMEOUT_MS - 50)
      expect(took).toBeLessThan(FAIL_WITHIN_MS)
    } finally {
      process.kill(replica.pid, 'SIGCONT')
    }
    // The write landed on the primary but was never acknowledged: the same compare-and-set again
    // finds it (the engine's retry reads it back), and writes nothing twice.
    const [retry] = await confirmed(() => kv.write([put('in-freeze')]))
    expect(retry).toMatchObject({ ok: false, current: { version: 1, value: { key: 'in-freeze' } } })
    expect(await onReplica.hget(entries, 'in-freeze')).not.toBeNull()
  }, 60_000)

  it('a compare-and-set that finds a record another connection wrote waits for that record on the replica', async () => {
    const [writer, finder] = [await openKv([]), await openKv([])]
    await Promise.all([confirmed(() => writer.write([put('warm-writer')])), confirmed(() => finder.write([put('warm-finder')]))])
    process.kill(replica.pid, 'SIGSTOP')
    try {
      // The writer's record lands on the primary only, and the writer is told it may not have.
      await expect(writer.write([put('found')])).rejects.toMatchObject({ code: 'JOURNAL_UNAVAILABLE' })
      // The finder's insert finds it: a redelivery acknowledged as a duplicate would rest on a
      // record a failover loses, so the finder too is answered only once the replica has it.
      await expect(finder.write([put('found')])).rejects.toMatchObject({ code: 'JOURNAL_UNAVAILABLE' })
    } finally {
      process.kill(replica.pid, 'SIGCONT')
    }
    const [found] = await confirmed(() => finder.write([put('found')]))
    expect(found).toMatchObject({ ok: false, current: { version: 1, value: { key: 'found' } } })
    expect(await onReplica.hget(entries, 'found')).not.toBeNull()
  }, 60_000)

  // WAIT counts the writes of its own connection (the documented rule); this machine's Redis 7.0
  // answered the test above without the write back too. What makes it hold on
  // every server: the failed compare-and-set writes the record it found back, unchanged, so its
  // connection's offset covers it (helpers.lua, confirm_found).
  it('a compare-and-set that fails writes the record it found back, unchanged, on its own connection', async () => {
    const kv = await openKv([])
    await confirmed(() => kv.write([put('kept')]))
    const [admin, events] = [new Redis(primary.url), new Redis(primary.url)]
    clients.push(admin, events)
    await admin.config('SET', 'notify-keyspace-events', 'Kh')
    const written: string[] = []
    events.on('message', (_channel: string, event: string) => written.push(event))
    await events.subscribe(`__keyspace@0__:${entries}`)
    const [result] = await confirmed(() => kv.write([put('kept')]))
    expect(result).toMatchObject({ ok: false, current: { version: 1 } })
    await waitFor('the write back', async () => written.length > 0, 10_000)
    expect(written).toEqual(['hset'])
    expect(await admin.hget(entries, 'kept')).toBe(await onReplica.hget(entries, 'kept'))
  }, 60_000)
})
