/**
 * What the Redis steps' scripts write, beyond the conformance cases (which compare some fields): a
 * record a script rewrites is, byte for byte in its envelope, what the TypeScript rules and
 * `RedisKv` would have written (cjson would not do: 14 significant digits, an empty array as {}),
 * and the indexes stay exact when an operator's write through the journal comes between two steps.
 */
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it } from 'vitest'
import { RedisDurability, RedisKeys } from '../../src/backends/redis/index.js'
import { encodeEnvelope } from '../../src/backends/redis/envelope.js'
import type { InboxRecord, OutboxRecord } from '../../src/core/durability/journal/records.js'
import { recordIndex } from '../../src/core/durability/journal/records.js'
import type { JournalSteps, StepClaim } from '../../src/core/durability/steps/journal-steps.js'
import {
  claimedRecord,
  endedRecord,
  leaseOf,
  queuedRecord,
  sentOutboxRecord,
  spentRecord,
} from '../../src/core/durability/steps/step-rules.js'
import { REDIS_URL, deletePrefix, randomPrefix, redisAvailable } from '../../test-utils/redis.js'

const available = await redisAvailable('what the Redis steps write')

const NOW = 1_733_000_000_000
const LEASE_MS = 30_000
const claimAt = (now: number, incarnation = 'run-1'): StepClaim => ({ owner: 'bot/"a"', incarnation, leaseMs: LEASE_MS, now })

/**
 * An event no cjson round trip survives (empty arrays and objects, 16-digit integers, fractions,
 * escapes, brackets in strings), holding names a rule changes (so the inbox records are rebuilt
 * from their scanned fields; the outbox ones, whose payload holds none, are spliced).
 */
const EVENT = {
  id: '1',
  chatId: 'c/1"é',
  text: 'a\\"b\n]}"{[ ☃ \u0001',
  entities: [],
  meta: { state: 'x', updatedAt: 1, lease: { token: 9 } },
  nested: { empty: {}, lists: [[], [1.5, -0.1, 1e21, 5e-324, 9007199254740991]], big: 1_733_000_000_000_123 },
}

function message(n: number, claim: StepClaim): InboxRecord {
  return {
    id: `mock:c%2F1:${n}`,
    kind: 'message',
    state: 'processing',
    chatId: EVENT.chatId,
    provider: 'mock',
    event: { ...EVENT, id: String(n) },
    attempts: 1,
    nextAttemptAt: null,
    lease: leaseOf(claim, 1),
    fencingToken: 1,
    lastError: null,
    createdAt: claim.now,
    seq: claim.now * 1000 + n,
    updatedAt: claim.now,
  }
}

function reply(inbound: InboxRecord, claim: StepClaim): OutboxRecord {
  return {
    key: `${inbound.id}:1`,
    state: 'sending',
    chatId: inbound.chatId,
    payload: { text: 'x', buttons: [], parts: [[]], size: 1_733_000_000_000_999 },
    fingerprint: null,
    keySource: 'derived',
    inboundId: inbound.id,
    ordinal: 1,
    previousPart: null,
    nextPart: null,
    attempts: 0,
    nextAttemptAt: null,
    lease: leaseOf(claim, 1),
    fencingToken: 1,
    providerMessageId: null,
    lastError: null,
    createdAt: claim.now,
    seq: inbound.seq! + 1,
    updatedAt: claim.now,
  }
}

/** A step's answer as a promise. */
const step = <T>(call: (done: (outcome: T) => void) => void) => new Promise<T>((resolve) => call(resolve))

describe.runIf(available)('what the Redis steps write', () => {
  const client = new Redis(REDIS_URL)
  const prefixes: string[] = []
  afterAll(async () => {
    for (const prefix of prefixes) await deletePrefix(client, prefix)
    await client.quit()
  })

  const open = () => {
    const durability = new RedisDurability({ client, prefix: randomPrefix() })
    prefixes.push(durability.prefix)
    const keys = new RedisKeys(durability.prefix)
    /** The stored envelope of a record, and the one `RedisKv` would store for `record` at `version`. */
    const envelopes = async <K extends 'inbox' | 'outbox'>(
      kind: K,
      record: K extends 'inbox' ? InboxRecord : OutboxRecord,
      version: number,
    ) => {
      const key = kind === 'inbox' ? (record as InboxRecord).id : (record as OutboxRecord).key
      const index = kind === 'inbox' ? recordIndex('inbox', record as InboxRecord) : recordIndex('outbox', record as OutboxRecord)
      const expected = encodeEnvelope(
        { op: 'put', collection: kind, key, expectVersion: version - 1, value: record as never, ...index },
        version,
      )
      return { stored: await client.hget(keys.collection('s', kind).entries, key), expected }
    }
    return { durability, steps: durability.steps('s'), journal: durability.journal('s'), envelopes }
  }

  it('a claim, an end, a sent mark and a dead letter for spent runs are what the TypeScript rules make, byte for byte', async () => {
    const { steps, envelopes } = open()
    const t0 = claimAt(NOW)
    const [m1, m2] = [message(1, t0), message(2, t0)]
    await step((done) => steps.admit(m1, t0, done))
    await step((done) => steps.admit(m2, t0, done))
    const send = reply(m1, t0)
    await step((done) => steps.journal({ id: m1.id, token: 1 }, [send], done))
    const journaled = await envelopes('outbox', send, 1)
    expect(journaled.stored).toBe(journaled.expected)

    const t1 = claimAt(NOW + 7)
    const end = { state: 'done', note: 'a "note" ☃' } as const
    const settled = await step((done) =>
      steps.settle({ inbound: { id: m1.id, token: 1, end }, marks: [{ key: send.key, messageId: 'p/1' }] }, t1, done),
    )
    const next = claimedRecord(queuedRecord(m2), t1)
    expect(settled).toEqual({ type: 'settled', next })
    const sent = await envelopes('outbox', sentOutboxRecord(send, 'p/1', t1.now), 2)
    expect(sent.stored).toBe(sent.expected)
    const ended = await envelopes('inbox', endedRecord(m1, end, t1.now), 2)
    expect(ended.stored).toBe(ended.expected)
    const claimed = await envelopes('inbox', next, 2)
    expect(claimed.stored).toBe(claimed.expected)

    // m2's runs never complete: two leases run out, the third claim finds them spent. Its last run
    // follows a run that never ended: a pass that is not alone leaves it as it is (isLastRunAlone).
    let record = next
    for (let version = 3; version <= 4; version++) {
      const at = claimAt(record.lease!.expiresAt, `run-${version}`)
      const alone = version === 4 ? record.id : undefined
      if (alone) {
        const left = await step<unknown>((done) => steps.takeBack(at, { maxAttempts: 3, limit: 10 }, done))
        expect(left).toEqual([{ dead: false, waitsAlone: true, record }])
        const untouched = await envelopes('inbox', record, version - 1)
        expect(untouched.stored).toEqual(untouched.expected)
      }
      const taken = await step<unknown>((done) => steps.takeBack(at, { maxAttempts: 3, limit: 10, alone }, done))
      record = claimedRecord(record, at)
      expect(taken).toEqual([{ dead: false, record }])
      const again = await envelopes('inbox', record, version)
      expect(again.stored).toBe(again.expected)
    }
    const last = claimAt(record.lease!.expiresAt, 'run-5')
    const dead = spentRecord(record, last.now)
    expect(await step<unknown>((done) => steps.takeBack(last, { maxAttempts: 3, limit: 10 }, done))).toEqual([{ dead: true, record: dead }])
    const buried = await envelopes('inbox', dead, 5)
    expect(buried.stored).toBe(buried.expected)
  })

  it("a failed end keeps its retry time and error as given; an operator's discard between two steps leaves the indexes exact", async () => {
    const { steps, journal, envelopes } = open()
    const t0 = claimAt(NOW)
    const [m1, m2, m3] = [message(1, t0), message(2, t0), message(3, t0)]
    for (const m of [m1, m2, m3]) await step((done) => steps.admit(m, t0, done))
    const error = { message: 'boom "x"', code: 'E_X', name: 'Error', at: NOW + 0.25 }
    const end = { state: 'failed', error, retryAt: NOW + 1_000.5 } as const
    expect(await step((done) => steps.settle({ inbound: { id: m1.id, token: 1, end }, marks: [] }, claimAt(NOW + 1), done))).toEqual({
      type: 'settled',
      next: undefined,
    })
    const failed = endedRecord(m1, end, NOW + 1)
    const stored = await envelopes('inbox', failed, 2)
    expect(stored.stored).toBe(stored.expected)
    expect((await journal.due('inbox', NOW + 1_000.5, 10)).map((entry) => entry.record.id)).toContain(m1.id)

    // The operator discards the failed head through the journal (write.lua); the next take-back drops it and claims m2.
    const [found] = await journal.read('inbox', [m1.id])
    const discarded = { ...found!.record, state: 'dead' as const, nextAttemptAt: null, updatedAt: NOW + 2 }
    expect(await journal.write('operator.discard', [{ kind: 'inbox', record: discarded, expectVersion: found!.version }])).toMatchObject([
      { ok: true },
    ])
    const t3 = claimAt(NOW + 3)
    expect(await step((done) => steps.takeBack(t3, { maxAttempts: 3, limit: 10 }, done))).toEqual([
      { dead: false, record: claimedRecord(queuedRecord(m2), t3) },
    ])
    // The late settle of m1's run is fenced; each record is in exactly one state index, and due only while unfinished.
    expect(await step((done) => steps.settle({ inbound: { id: m1.id, token: 1, end: { state: 'done' } }, marks: [] }, t3, done))).toEqual({
      type: 'fenced',
    })
    expect(await journal.count('inbox')).toEqual({ dead: 1, processing: 1, pending: 1 })
    const due = await journal.due('inbox', Number.MAX_SAFE_INTEGER, 10)
    expect(due.map((entry) => entry.record.id).sort()).toEqual([m2.id, m3.id].sort())
  })
})
