/**
 * Group commit of `RedisKv.write` (group-commit.ts), counted on an injected ioredis client: a
 * write sent while none is in flight goes at once; writes issued while it is in flight share the
 * next call, and so do the writes the callers of a reply make in the turn it answered them. The
 * counts do not depend on timing: every write below is issued in one synchronous stretch, before
 * any reply can arrive, once the lane has rested from the reply before. Each op keeps its own
 * compare-and-set result, a same-key pair in one batch applies in call order, and a failed call
 * rejects every caller in it.
 */
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { REDIS_LIMITS, RedisKeys, RedisKv } from '../../src/backends/redis/index.js'
import type { KvOp, KvPut, KvWriteResult } from '../../src/core/spi.js'
import { REDIS_URL, deletePrefix, laneRested, randomPrefix, recordCommands, redisAvailable } from '../../test-utils/redis.js'

const available = await redisAvailable('RedisKv group commit on the machine Redis')

function put(collection: string, key: string, expectVersion: number, value: string = key): KvPut {
  return { op: 'put', collection, key, expectVersion, value: { value }, state: 'pending', stateTime: 1_000, due: 5_000 }
}

describe.runIf(available)('RedisKv group commit', () => {
  const prefix = randomPrefix()
  const sent: string[] = []
  let client: Redis
  let kv: RedisKv

  beforeAll(async () => {
    client = new Redis(REDIS_URL)
    await client.ping()
    recordCommands(client, sent)
    kv = new RedisKv({ client, prefix })
    await kv.start()
    // Warm up: both collections recorded in the scopes set, the script known to the server.
    await kv.write([put('inbox', 'warm', 0), put('outbox', 'warm', 0)])
  })

  afterAll(async () => {
    await kv?.stop()
    await deletePrefix(client, prefix)
    client?.disconnect()
  })

  /** Issues every write in one synchronous stretch and counts the commands they cost. */
  async function together(writes: (readonly KvOp[])[]): Promise<{ outcomes: PromiseSettledResult<KvWriteResult[]>[]; sent: string[] }> {
    await laneRested()
    sent.length = 0
    const outcomes = await Promise.allSettled(writes.map((ops) => kv.write(ops)))
    return { outcomes, sent: [...sent] }
  }

  it('a lone write across two collections is one call', async () => {
    const { outcomes, sent } = await together([[put('inbox', 'lone', 0), put('outbox', 'lone', 0)]])
    expect(sent).toEqual(['evalsha'])
    expect(outcomes[0]).toEqual({
      status: 'fulfilled',
      value: [
        { ok: true, version: 1 },
        { ok: true, version: 1 },
      ],
    })
  })

  it('twenty concurrent writes cost two calls: the first at once, the other nineteen together', async () => {
    const writes = Array.from({ length: 20 }, (_, n) => [put(n % 2 ? 'inbox' : 'outbox', `c${n}`, 0)])
    const { outcomes, sent } = await together(writes)
    expect(sent).toEqual(['evalsha', 'evalsha'])
    for (const outcome of outcomes) expect(outcome).toEqual({ status: 'fulfilled', value: [{ ok: true, version: 1 }] })
    const stored = await kv.get('inbox', ['c1', 'c19'])
    expect(stored.map((entry) => entry?.value)).toEqual([{ value: 'c1' }, { value: 'c19' }])
  })

  it('the writes the callers of a reply make right away go in one call, not the first alone and the rest behind it', async () => {
    await laneRested()
    sent.length = 0
    await kv.write([put('inbox', 'answered', 0)]).then(() => Promise.all([1, 2, 3, 4].map((n) => kv.write([put('outbox', `next${n}`, 0)]))))
    expect(sent).toEqual(['evalsha', 'evalsha'])
  })

  it('each op of a batch keeps its own result; a same-key pair applies in call order', async () => {
    await kv.write([put('inbox', 'held', 0, 'first')])
    const { outcomes, sent } = await together([
      [put('inbox', 'blocker', 0)], // in flight while the others queue: they share the second call
      [put('inbox', 'fresh', 0), put('inbox', 'held', 7)], // one applies, one is refused
      [put('inbox', 'pair', 0, 'one')],
      [put('inbox', 'pair', 1, 'two')], // sees the op before it in the same batch
      [put('outbox', 'race', 0, 'winner')],
      [put('outbox', 'race', 0, 'loser')], // the same insert again: refused, showing the winner
      [{ op: 'delete', collection: 'inbox', key: 'held', expectVersion: 1 }],
    ])
    expect(sent).toEqual(['evalsha', 'evalsha'])
    const values = outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : outcome.reason))
    expect(values[0]).toEqual([{ ok: true, version: 1 }])
    expect(values[1]).toMatchObject([
      { ok: true, version: 1 },
      { ok: false, current: { key: 'held', version: 1, value: { value: 'first' } } },
    ])
    expect(values[2]).toEqual([{ ok: true, version: 1 }])
    expect(values[3]).toEqual([{ ok: true, version: 2 }])
    expect(values[4]).toEqual([{ ok: true, version: 1 }])
    expect(values[5]).toMatchObject([{ ok: false, current: { key: 'race', version: 1, value: { value: 'winner' } } }])
    expect(values[6]).toEqual([{ ok: true, version: 0 }])
    const [pair, held] = await kv.get('inbox', ['pair', 'held'])
    expect(pair).toMatchObject({ version: 2, value: { value: 'two' } })
    expect(held).toBeUndefined()
  })

  it('a batch holds at most writeBatchMax ops; a longer write takes more calls, in order', async () => {
    const ops = Array.from({ length: REDIS_LIMITS.writeBatchMax + 1 }, (_, n) => put('outbox', `long${n}`, 0))
    ops.push(put('outbox', 'long0', 1, 'again')) // lands in the second call, after its insert
    const { outcomes, sent } = await together([ops])
    expect(sent).toEqual(['evalsha', 'evalsha'])
    const results = outcomes[0]!.status === 'fulfilled' ? outcomes[0].value : []
    expect(results).toHaveLength(ops.length)
    expect(results.at(-1)).toEqual({ ok: true, version: 2 })
  })

  it('a call that fails rejects every caller in it, and the next call works', async () => {
    // The entries hash of one collection as a string: HGET inside the script fails (WRONGTYPE).
    const broken = new RedisKeys(prefix).collection('', 'broken').entries // '': the root scope
    await kv.write([put('broken', 'x', 0)]) // recorded, so the failing write below costs no SADD
    await client.del(broken)
    await client.set(broken, 'not a hash')
    const { outcomes, sent } = await together([
      [put('inbox', 'gate', 0)],
      [put('inbox', 'victim', 0)],
      [put('broken', 'y', 0)],
      [put('outbox', 'victim', 0)],
    ])
    expect(sent).toEqual(['evalsha', 'evalsha'])
    expect(outcomes[0]!.status).toBe('fulfilled')
    for (const outcome of outcomes.slice(1)) expect(outcome).toMatchObject({ status: 'rejected', reason: { code: 'REDIS_COMMAND_FAILED' } })
    await client.del(broken)
    expect(await kv.write([put('inbox', 'after', 0)])).toEqual([{ ok: true, version: 1 }])
  })

  it('an invalid op fails its own call only', async () => {
    const bad = { ...put('inbox', 'bad', 0), stateTime: Number.NaN }
    const { outcomes } = await together([[put('inbox', 'good', 0)], [bad]])
    expect(outcomes[0]).toEqual({ status: 'fulfilled', value: [{ ok: true, version: 1 }] })
    expect(outcomes[1]!.status).toBe('rejected')
  })
})
