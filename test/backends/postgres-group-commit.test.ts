/**
 * Group commit in PostgresKv (group-commit.ts, writes.ts): concurrent write calls share one round
 * trip and one transaction, each op keeps its own compare-and-set result, two calls on one key
 * never share a batch (the second sees the first), and a batch that fails rejects every call in
 * it with nothing applied. Round trips are counted at the pool; nothing here measures time.
 */
import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { PostgresKv } from '../../src/backends/postgres/index.js'
import { adminQuery, countRoundTrips, dropTablePrefix, postgresAvailable, randomTablePrefix, testPool } from '../../test-utils/postgres.js'
import { useCleanups } from '../../test-utils/lifecycle.js'
import { outboxPut as put } from '../../test-utils/kv-ops.js'

const available = await postgresAvailable()

describe.runIf(available)('PostgresKv group commit', () => {
  const cleanups = useCleanups()

  async function startedKv() {
    const pool = testPool({ max: 8 })
    cleanups.push(() => pool.end())
    const tablePrefix = randomTablePrefix()
    const kv = new PostgresKv({ pool, tablePrefix })
    cleanups.push(() => dropTablePrefix(tablePrefix))
    await kv.start()
    cleanups.push(() => kv.stop())
    return { kv, trips: countRoundTrips(pool) }
  }

  /** The counts as a plain GROUP BY over the journal table sees them. */
  async function countedByScan(kv: PostgresKv, scope: string): Promise<Record<string, number>> {
    const { rows } = await adminQuery<{ state: string; n: string }>(
      `SELECT state, count(*) AS n FROM ${kv.tables.durable} WHERE scope = $1 AND collection = 'outbox' GROUP BY state`,
      [scope],
    )
    return Object.fromEntries(rows.map((row) => [row.state, Number(row.n)]))
  }

  it('concurrent calls share one round trip, each op keeps its own result, and a same-key call waits for the next batch', async () => {
    const { kv, trips } = await startedKv()
    await kv.write([put('old', 0, { state: 'sent', due: null }), put('moving', 0), put('doomed', 0)])
    trips.reset()
    // All in one tick: the first batch takes every call but the second one on 'a' and on 'b'.
    const calls = [
      kv.write([put('a', 0)]),
      kv.write([put('b', 0, { value: 'first b' })]),
      kv.write([put('a', 1, { state: 'sending' })]),
      kv.write([put('b', 0, { value: 'second b' })]),
      kv.write([put('ghost', 3)]),
      kv.write([put('old', 0), put('moving', 1, { state: 'sending' })]),
      kv.write([{ op: 'delete', collection: 'outbox', key: 'doomed', expectVersion: 1 }]),
      kv.scope('bot-a').write([put('a', 0, { state: 'dead' })]),
    ]
    const results = await Promise.all(calls)
    expect(trips.queries).toBe(2)
    expect(results[0]).toEqual([{ ok: true, version: 1 }])
    expect(results[1]).toEqual([{ ok: true, version: 1 }])
    // The second call on a key saw the first one's write.
    expect(results[2]).toEqual([{ ok: true, version: 2 }])
    expect(results[3]).toMatchObject([{ ok: false, current: { key: 'b', version: 1, value: 'first b' } }])
    expect(results[4]).toEqual([{ ok: false, current: undefined }])
    expect(results[5]).toMatchObject([
      { ok: false, current: { key: 'old', version: 1, state: 'sent' } },
      { ok: true, version: 2 },
    ])
    expect(results[6]).toEqual([{ ok: true, version: 0 }])
    expect(results[7]).toEqual([{ ok: true, version: 1 }])
    const read = await kv.get('outbox', ['a', 'b', 'moving', 'doomed'])
    expect(read.map((entry) => entry && [entry.version, entry.state])).toEqual([[2, 'sending'], [1, 'pending'], [2, 'sending'], undefined])
    expect(await kv.count('outbox')).toEqual(await countedByScan(kv, ''))
    expect(await kv.count('outbox')).toEqual({ pending: 1, sending: 2, sent: 1 })
    expect(await kv.scope('bot-a').count('outbox')).toEqual({ dead: 1 })
  })

  it('a call that writes one key twice still sees its own first write, in a batch with others', async () => {
    const { kv, trips } = await startedKv()
    trips.reset()
    const [twice, other] = await Promise.all([
      kv.write([put('k', 0), put('k', 1, { state: 'sending' }), put('k', 1)]),
      kv.write([put('other', 0)]),
    ])
    expect(trips.queries).toBe(1)
    expect(twice).toMatchObject([
      { ok: true, version: 1 },
      { ok: true, version: 2 },
      { ok: false, current: { version: 2 } },
    ])
    expect(other).toEqual([{ ok: true, version: 1 }])
    expect(await kv.count('outbox')).toEqual({ pending: 1, sending: 1 })
  })

  it('a batch the server fails rejects every call in it, and none of its ops is applied', async () => {
    const { kv } = await startedKv()
    // Too long for a btree index entry (random, so compression cannot shrink it): the server refuses the row.
    const tooLong = randomBytes(6_000).toString('hex')
    const settled = await Promise.allSettled([kv.write([put('x', 0)]), kv.write([put(tooLong, 0)]), kv.write([put('y', 0)])])
    expect(settled.map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected'])
    expect(await kv.get('outbox', ['x', 'y'])).toEqual([undefined, undefined])
    expect(await kv.count('outbox')).toEqual({})
    // The store goes on: the next calls commit.
    expect(await Promise.all([kv.write([put('x', 0)]), kv.write([put('y', 0)])])).toEqual([
      [{ ok: true, version: 1 }],
      [{ ok: true, version: 1 }],
    ])
  })
})
