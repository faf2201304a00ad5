/**
 * The inbox's transitions. Every admitted event is written down (processing, leased to this
 * instance, one run charged) before any handler runs; it is done only once its effects settled.
 *
 *   admit ─► processing ─► done
 *               │   ▲
 *               │   │ claim (the sweeper, a run again in place; a head's claim charges a run)
 *               ▼   │
 *             failed / pending (lease over, operator's replay) ──► dead (after inbox.maxAttempts charged runs)
 */
import type { InboundEvent } from '../../provider/provider.js'
import type { Versioned } from '../journal/backend.js'
import { claimRun, runsSpent } from '../leases/charged-runs.js'
import { spentRecord } from '../steps/step-rules.js'
import { SEQ_PER_MS } from '../turns/chat-order.js'
import type { DurabilityEngine } from '../engine.js'
import { errorInfo } from '../engine.js'
import { HeldRecord, type HeldUpdate } from '../leases/held-record.js'
import type { ParkedMark, SentMarks } from '../outbox/sent-marks.js'
import type { Json } from '../journal/kv.js'
import { inboxRecordId } from '../outbox/keys.js'
import type { ErrorInfo, InboxRecord } from '../journal/records.js'

/** Journals an inbound event; the record comes back held, or the existing record of a redelivery. */
export function admitInbound(
  engine: DurabilityEngine,
  event: InboundEvent,
  journaledEvent: Json,
  provider: string,
  /** When it arrived, if already decided (its place in its chat's turn queue, with coordination). @default now */
  arrivedAt?: number,
): Promise<{ held: HeldRecord<'inbox'> } | { existing: InboxRecord | undefined }> {
  // then(), not await: one promise instead of two, once per message.
  let record: InboxRecord
  try {
    record = inboxRecord(engine, event, journaledEvent, provider, arrivedAt)
  } catch (error) {
    return Promise.reject(error)
  }
  // Not journaled (a redelivery, a refusal): it leaves its chat's lane, which it joined in inboxRecord.
  return engine.journal.write('inbox.admit', [{ kind: 'inbox', record, expectVersion: 0 }]).then(
    ([result]) => {
      if (result!.ok) {
        engine.metrics.increment('inboundJournaled')
        return { held: engine.hold('inbox', { record, version: result!.version }) }
      }
      engine.tails.leave(record.chatId, record.id, record.after!)
      return { existing: result!.current?.record as InboxRecord | undefined }
    },
    (error: unknown) => {
      engine.tails.leave(record.chatId, record.id, record.after!)
      throw error
    },
  )
}

/** A new inbound record of this process's lane: it joins the end of its chat's lane (chat-tails.ts). */
function inboxRecord(
  engine: DurabilityEngine,
  event: InboundEvent,
  journaledEvent: Json,
  provider: string,
  arrivedAt: number | undefined,
): InboxRecord {
  const record = admittedRecord(engine, inboxRecordId(provider, event.chatId, event.id), event, journaledEvent, provider, arrivedAt)
  // It joins the end of its chat's lane before the write, so a message admitted meanwhile queues behind it.
  record.after = engine.tails.enter(event.chatId, record.id)
  return record
}

/** A new inbound record `id`: processing, leased to this instance, one run charged. */
export function admittedRecord(
  engine: DurabilityEngine,
  id: string,
  event: InboundEvent,
  journaledEvent: Json,
  provider: string,
  arrivedAt?: number,
): InboxRecord {
  const now = engine.now()
  return {
    id,
    kind: event.kind ?? (event.interaction ? 'interaction' : 'message'),
    state: 'processing',
    chatId: event.chatId,
    provider,
    event: journaledEvent,
    attempts: 1,
    nextAttemptAt: null,
    lease: engine.lease('inbox', 1),
    fencingToken: 1,
    lastError: null,
    createdAt: arrivedAt ?? now,
    // With coordination the chat's turn queue decided its arrival (strictly later than the chat's last).
    seq: arrivedAt === undefined ? engine.sequence.next(now) : engine.sequence.observe(arrivedAt * SEQ_PER_MS),
    updatedAt: now,
  }
}

/**
 * Claims a record the sweeper found (pending, failed, or processing under a lease that is over),
 * charging one run; a record that already had its runs goes to the dead-letter queue instead.
 */
export async function claimInbound(engine: DurabilityEngine, found: Versioned<InboxRecord>): Promise<HeldRecord<'inbox'> | undefined> {
  const taken = await takeInbound(engine, found, true)
  return taken === 'dead' ? undefined : taken
}

/**
 * Takes a record the sweeper found. `charge`: it heads its chat here and runs next, so the claim
 * charges it a run, and one that already had its runs goes to the dead-letter queue (`'dead'`)
 * instead. Uncharged, it is queued behind its chat's head: it is leased and fenced, and charged
 * nothing until it runs (its first run was charged at admission, each later one as a head).
 * Undefined when another claim won the race.
 */
export async function takeInbound(
  engine: DurabilityEngine,
  found: Versioned<InboxRecord>,
  charge: boolean,
): Promise<HeldRecord<'inbox'> | 'dead' | undefined> {
  const { record } = found
  const now = engine.now()
  // Still under this run's unanswered claim: the run to come is the one that claim charged.
  const charged = charge && !engine.unrun.taken(record)
  if (charged && runsSpent(record.attempts, engine.config.inbox.maxAttempts)) {
    const dead = spentRecord(record, now)
    const [result] = await engine.journal.write('inbox.dead', [{ kind: 'inbox', record: dead, expectVersion: found.version }])
    if (!result!.ok) return undefined
    engine.metrics.increment('inboundDead')
    engine.events.dead({ kind: 'inbox', id: record.id, error: dead.lastError })
    return 'dead'
  }
  const claimed = claimedRecord(engine, record, undefined, charged)
  const [result] = await engine.journal
    .write('inbox.claim', [{ kind: 'inbox', record: claimed, expectVersion: found.version }])
    .catch((error: unknown) => {
      engine.unrun.unanswered(claimed)
      throw error
    })
  if (!result!.ok) return undefined
  engine.metrics.increment('inboundReplayed')
  return engine.hold('inbox', { record: claimed, version: result!.version })
}

/**
 * The claim (`claimRun`), for a record found by the sweeper and for another run of one held, under
 * this instance's lease; uncharged (`charge` false), the same lease and token without a run.
 */
export function claimedRecord(engine: DurabilityEngine, record: InboxRecord, lastError?: ErrorInfo, charge = true): InboxRecord {
  const claimed = claimRun(record, (token) => engine.lease('inbox', token))
  return {
    ...claimed,
    attempts: charge ? claimed.attempts : record.attempts,
    nextAttemptAt: null,
    lastError: lastError ?? record.lastError,
    updatedAt: engine.now(),
  }
}

/**
 * Marks a handled record done (with `note`, what its run did, when it did something unusual); a lease
 * lost meanwhile is counted in staleLeases. The `sent` marks of its sends that still wait go in the
 * same journal write (one round trip), in front of the completion.
 */
export function completeInbound(engine: DurabilityEngine, held: HeldRecord<'inbox'>, note?: string, marks?: SentMarks): Promise<boolean> {
  const change = (record: InboxRecord): InboxRecord => ({
    ...record,
    state: 'done',
    lease: null,
    nextAttemptAt: null,
    updatedAt: engine.now(),
    ...(note === undefined ? {} : { note }),
  })
  const parked = marks?.take() ?? []
  const done = parked.length === 0 ? held.update('inbox.complete', change) : completeWithMarks(held, change, marks!, parked)
  return done.then((ok) => {
    if (!ok) engine.metrics.increment('staleLeases')
    return ok
  })
}

function completeWithMarks(
  held: HeldRecord<'inbox'>,
  change: (record: InboxRecord) => InboxRecord,
  marks: SentMarks,
  parked: ParkedMark[],
): Promise<boolean> {
  const updates = [...parked, { held, change } as HeldUpdate]
  return HeldRecord.updateTogether(MARKED_AND_COMPLETE, updates).then(
    (results) => {
      marks.settle(parked, results)
      return results[parked.length]!
    },
    (error: unknown) => {
      marks.restore(parked)
      throw error
    },
  )
}

const MARKED_AND_COMPLETE = ['outbox.markSent', 'inbox.complete'] as const

/**
 * Dead-letters a held record whose runs are used up (inbox.maxAttempts): it failed before its
 * handlers ran, or its effects could not be recorded, on every run. A lease lost meanwhile is
 * counted in staleLeases.
 */
export async function deadLetterInbound(engine: DurabilityEngine, held: HeldRecord<'inbox'>, error: unknown): Promise<void> {
  const now = engine.now()
  const lastError = errorInfo(error, now)
  const ok = await held.update('inbox.dead', (record) => ({
    ...record,
    state: 'dead',
    lease: null,
    lastError,
    nextAttemptAt: null,
    updatedAt: now,
  }))
  if (!ok) {
    engine.metrics.increment('staleLeases')
    return
  }
  engine.metrics.increment('inboundDead')
  engine.events.dead({ kind: 'inbox', id: held.id, error: lastError })
}
