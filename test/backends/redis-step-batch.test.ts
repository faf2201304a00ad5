/**
 * The Redis steps' group commit (src/backends/redis/step-batch.ts), on the machine's server: steps
 * added while a call is in flight go together in the next call, applied in the order they were
 * added and answered each on its own (a step that fails fails alone); a settle waits for a step
 * to ride with; a call that fails answers every step in it `unavailable`. Calls are counted by the
 * EVALSHA commands the client sends.
 */
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it } from 'vitest'
import { RedisDurability, RedisKeys } from '../../src/backends/redis/index.js'
import type { InboxRecord, OutboxRecord } from '../../src/core/durability/journal/records.js'
import type { JournalSteps, StepClaim } from '../../src/core/durability/steps/journal-steps.js'
import { ERROR_CODES } from '../../src/core/errors/errors.js'
import { admitted } from '../../test-utils/steps-conformance.js'
import { REDIS_URL, deletePrefix, laneRested, randomPrefix, recordCommands, redisAvailable } from '../../test-utils/redis.js'

const available = await redisAvailable('the Redis steps carried in shared calls')

const claim: StepClaim = { owner: 'bot-a', incarnation: 'run-1', leaseMs: 30_000, now: 1_733_000_000_000 }

function send(message: InboxRecord): OutboxRecord {
  return {
    key: `${message.id}:0`,
    state: 'sending',
    chatId: message.chatId,
    payload: 're',
    fingerprint: null,
    keySource: 'derived',
    inboundId: message.id,
    ordinal: 0,
    previousPart: null,
    nextPart: null,
    attempts: 0,
    nextAttemptAt: null,
    lease: message.lease,
    fencingToken: 1,
    providerMessageId: null,
    lastError: null,
    createdAt: claim.now,
    updatedAt: claim.now,
  }
}

/** Each step's answer, in the order the steps were added. */
function answers(steps: JournalSteps) {
  const answered: Promise<unknown>[] = []
  const answer = <T>(call: (done: (outcome: T) => void) => void) => answered.push(new Promise<T>((resolve) => call(resolve)))
  return { answered, answer, steps }
}

describe.runIf(available)('the Redis steps carried in shared calls', () => {
  const client = new Redis(REDIS_URL)
  const sent: string[] = []
  recordCommands(client, sent)
  const prefixes: string[] = []
  const calls = () => sent.filter((name) => name === 'evalsha').length

  afterAll(async () => {
    for (const prefix of prefixes) await deletePrefix(client, prefix)
    await client.quit()
  })

  const open = () => {
    const durability = new RedisDurability({ client, prefix: randomPrefix() })
    prefixes.push(durability.prefix)
    return { steps: durability.steps('s'), journal: durability.journal('s'), keys: new RedisKeys(durability.prefix) }
  }

  it('steps added while a call is in flight go in the next call, in order, each answered on its own; a step that fails fails alone', async () => {
    const { steps, journal, keys } = open()
    const [m1, m2, m3] = [admitted('c1', 1, claim), admitted('c1', 2, claim), admitted('c2', 3, claim)]
    // An outbox entry no step can read: the mark written to it fails in the script, alone.
    await client.hset(keys.collection('s', 'outbox').entries, 'broken', 'not an envelope')
    const before = calls()
    const { answered, answer } = answers(steps)
    answer((done) => steps.admit(m1, claim, done))
    answer((done) => steps.admit(m2, claim, done))
    answer((done) => steps.admit(m1, claim, done))
    answer((done) => steps.journal({ id: m1.id, token: 1 }, [send(m1)], done))
    answer((done) => steps.journal({ id: m1.id, token: 2 }, [send(m1)], done))
    answer((done) => steps.settle({ marks: [{ key: 'broken', messageId: 'p0' }] }, claim, done))
    answer((done) => steps.settle({ inbound: { id: m1.id, token: 1, end: { state: 'done' } }, marks: [] }, claim, done))
    answer((done) => steps.admit(m3, claim, done))
    const [first, second, duplicate, journaled, fenced, failed, settled, other] = await Promise.all(answered)

    expect(calls() - before).toBe(2)
    expect(first).toMatchObject({ type: 'run' })
    expect(second).toMatchObject({ type: 'queued' })
    expect(duplicate).toMatchObject({ type: 'duplicate', record: { id: m1.id } })
    expect(journaled).toEqual({ type: 'journaled' })
    expect(fenced).toEqual({ type: 'fenced' })
    expect(failed).toMatchObject({ type: 'unavailable', error: { code: ERROR_CODES.REDIS_COMMAND_FAILED } })
    // The settle after the failed step still ran: m1 done, m2 handed over under the next token.
    expect(settled).toMatchObject({ type: 'settled', next: { id: m2.id, state: 'processing', fencingToken: 1 } })
    expect(other).toMatchObject({ type: 'run' })
    expect((await journal.read('inbox', [m1.id]))[0]?.record.state).toBe('done')
  })

  it('a settle waits for a step to ride with and goes in its call; alone, it still lands', async () => {
    const { steps, journal } = open()
    const [m1, m2] = [admitted('c1', 1, claim), admitted('c2', 2, claim)]
    await new Promise((resolve) => steps.admit(m1, claim, resolve))
    await laneRested()
    const before = calls()
    const { answered, answer } = answers(steps)
    answer((done) => steps.settle({ inbound: { id: m1.id, token: 1, end: { state: 'done' } }, marks: [] }, claim, done))
    answer((done) => steps.admit(m2, claim, done))
    expect(await Promise.all(answered)).toMatchObject([{ type: 'settled' }, { type: 'run' }])
    expect(calls() - before).toBe(1)

    await laneRested()
    const alone = await new Promise((resolve) =>
      steps.settle({ inbound: { id: m2.id, token: 1, end: { state: 'done' } }, marks: [] }, claim, resolve),
    )
    expect(alone).toMatchObject({ type: 'settled' })
    expect((await journal.read('inbox', [m2.id]))[0]?.record.state).toBe('done')
  })

  it('a call that fails answers every step in it unavailable', async () => {
    const closed = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false })
    const durability = new RedisDurability({ client: closed, prefix: randomPrefix() })
    const steps = durability.steps('s')
    const { answered, answer } = answers(steps)
    answer((done) => steps.admit(admitted('c1', 1, claim), claim, done))
    answer((done) => steps.admit(admitted('c2', 2, claim), claim, done))
    answer((done) => steps.takeBack(claim, { maxAttempts: 3, limit: 10 }, done))
    for (const outcome of await Promise.all(answered)) expect(outcome).toMatchObject({ type: 'unavailable' })
    closed.disconnect()
  })
})
