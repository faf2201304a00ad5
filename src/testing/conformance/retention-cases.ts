/**
 * Conformance cases of retention: a pass purges done and sent records past the retention, at most
 * a batch of each lane, and nothing else; the purge backlog counts what a pass would still find;
 * a bot's retention judges age by the engine's clock. Times are chosen, never waited for.
 */
import assert from 'node:assert/strict'
import type { DurabilityBackend, JournalPut } from '../../core/durability/journal/backend.js'
import { resolveDurabilityConfig } from '../../core/durability/config.js'
import { DurabilityEngine } from '../../core/durability/engine.js'
import { purgeBacklog, purgePass, Retention } from '../../core/durability/retention/retention.js'
import { recordKey, type InboxRecord, type OutboxRecord } from '../../core/durability/journal/records.js'
import { ManualClock } from '../manual-clock.js'
import type { ConformanceCase } from './case.js'
import { inboxRecord, outboxRecord } from './fixtures.js'

/** The cut of the cases that call a pass directly: records last changed before it are expired. */
const CUT = 100_000
/** Expired records of each lane, and the batch the cases' passes take: three passes, the last short. */
const EXPIRED = 25
const BATCH = 10

const inboxPut = (record: InboxRecord): JournalPut => ({ kind: 'inbox', record, expectVersion: 0 })
const outboxPut = (record: OutboxRecord): JournalPut => ({ kind: 'outbox', record, expectVersion: 0 })

/** Expired done and sent records; several share a time, so ties are cut by key. */
function expiredRecords(): JournalPut[] {
  return Array.from({ length: EXPIRED }, (_, n) => [
    inboxPut(inboxRecord(`in-${n}`, { state: 'done', updatedAt: CUT - 1 - (n % 7) * 1_000 })),
    outboxPut(outboxRecord(`out-${n}`, { state: 'sent', updatedAt: CUT - 1 - (n % 5) * 1_000 })),
  ]).flat()
}

/** Records no pass may touch: every other state however old, and done and sent ones not older than the cut. */
function keptRecords(): JournalPut[] {
  return [
    ...(['pending', 'processing', 'failed', 'dead'] as const).map((state) => inboxPut(inboxRecord(`in-${state}`, { state, updatedAt: 1 }))),
    ...(['pending', 'sending', 'failed', 'dead', 'unknown'] as const).map((state) =>
      outboxPut(outboxRecord(`out-${state}`, { state, updatedAt: 1 })),
    ),
    inboxPut(inboxRecord('in-done-at-cut', { state: 'done', updatedAt: CUT })),
    outboxPut(outboxRecord('out-sent-at-cut', { state: 'sent', updatedAt: CUT })),
    inboxPut(inboxRecord('in-done-young', { state: 'done', updatedAt: CUT + 60_000 })),
    outboxPut(outboxRecord('out-sent-young', { state: 'sent', updatedAt: CUT + 60_000 })),
  ]
}

const keysOf = (puts: JournalPut[], kind: 'inbox' | 'outbox') =>
  puts.filter((put) => put.kind === kind).map((put) => recordKey(kind, put.record as InboxRecord | OutboxRecord))

/** An engine on `backend` with a retention, judging time by `clock`. */
function engineWithRetention(backend: DurabilityBackend, scopeId: string, retentionMs: number, clock: ManualClock): DurabilityEngine {
  const config = resolveDurabilityConfig(
    { instanceId: 'retention', retention: retentionMs, clock: clock.now },
    { tenantId: 't', environmentId: 'e', botId: 'b', connectionId: 'c' },
    backend,
  )
  const ignore = () => {}
  return new DurabilityEngine(backend, config, scopeId, { dead: ignore, ambiguous: ignore, warn: ignore, error: ignore })
}

export const RETENTION_CASES: ConformanceCase[] = [
  {
    name: 'retention: passes purge every done and sent record past the retention, at most a batch of each lane a pass, and keep every other record',
    async run({ journal }) {
      const j = journal()
      const expired = expiredRecords()
      const kept = keptRecords()
      await j.write('outbox.journal', [...expired, ...kept])
      assert.deepEqual(await purgeBacklog(j, CUT), { inbox: EXPIRED, outbox: EXPIRED, total: 2 * EXPIRED, capped: false })
      const passes = []
      for (let pass = 0; pass < 4; pass++) passes.push(await purgePass(j, CUT, BATCH))
      assert.deepEqual(passes, [
        { purged: 2 * BATCH, caughtUp: false },
        { purged: 2 * BATCH, caughtUp: false },
        { purged: 2 * (EXPIRED - 2 * BATCH), caughtUp: true },
        { purged: 0, caughtUp: true },
      ])
      assert.deepEqual(await purgeBacklog(j, CUT), { inbox: 0, outbox: 0, total: 0, capped: false })
      for (const kind of ['inbox', 'outbox'] as const) {
        const gone = await j.read(kind, keysOf(expired, kind))
        assert.deepEqual(gone.filter(Boolean), [], `every expired ${kind} record is purged`)
        const left = await j.read(kind, keysOf(kept, kind))
        assert.equal(left.filter(Boolean).length, keysOf(kept, kind).length, `every other ${kind} record is kept`)
      }
    },
  },
  {
    name: 'retention: the purge backlog counts the expired records a pass would find, up to its bound, and says when it hit it',
    async run({ journal }) {
      const j = journal()
      await j.write('outbox.journal', [...expiredRecords(), ...keptRecords()])
      assert.deepEqual(await purgeBacklog(j, CUT, BATCH), { inbox: BATCH, outbox: BATCH, total: 2 * BATCH, capped: true })
      // Older than CUT - 5s: the inbox records 5 and 6 seconds before the cut (n % 7 of 5 or 6), no outbox record.
      assert.deepEqual(await purgeBacklog(j, CUT - 5_000, 1_000), { inbox: 6, outbox: 0, total: 6, capped: false })
      await purgePass(j, CUT, BATCH)
      assert.deepEqual(await purgeBacklog(j, CUT), {
        inbox: EXPIRED - BATCH,
        outbox: EXPIRED - BATCH,
        total: 2 * (EXPIRED - BATCH),
        capped: false,
      })
    },
  },
  {
    name: "retention: a bot's retention judges age by its clock: nothing goes before the retention has passed, everything after",
    async run({ backend, scopeId }) {
      const clock = new ManualClock()
      const engine = engineWithRetention(backend, scopeId(), 60_000, clock)
      const settled = clock.now()
      await engine.journal.write('outbox.journal', [
        ...Array.from({ length: 30 }, (_, n) => inboxPut(inboxRecord(`in-${n}`, { state: 'done', updatedAt: settled }))),
        ...Array.from({ length: 30 }, (_, n) => outboxPut(outboxRecord(`out-${n}`, { state: 'sent', updatedAt: settled }))),
        inboxPut(inboxRecord('in-failed', { state: 'failed', updatedAt: settled, nextAttemptAt: settled + 1e9 })),
      ])
      const retention = new Retention(engine, (error) => assert.fail(String(error)))
      clock.advance(60_000)
      assert.deepEqual(await retention.pass(), { purged: 0, caughtUp: true }, 'a record exactly the retention old is kept')
      clock.advance(1)
      assert.deepEqual(await retention.pass(), { purged: 60, caughtUp: true })
      assert.deepEqual(await engine.journal.count('outbox').then(withoutZeros), {})
      assert.deepEqual(await engine.journal.count('inbox').then(withoutZeros), { failed: 1 })
    },
  },
]

function withoutZeros(counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0))
}
