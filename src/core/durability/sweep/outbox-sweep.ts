/**
 * What the sweeper does with one due outbox record: deliver a pending or failed send, hold a part
 * back behind its earlier part, split a journaled text over the channel's limit, and settle a send
 * whose process died mid-call (the ambiguous window) by `outbox.onAmbiguous`.
 */
import type { Versioned } from '../journal/backend.js'
import { ERROR_CODES } from '../../errors/errors.js'
import { ProviderNotLeaderError } from '../../provider/provider-errors.js'
import { backoffMs } from '../backoff.js'
import { errorInfo, type DurabilityEngine } from '../engine.js'
import { partKey } from '../outbox/keys.js'
import { attemptDelivery, claimOutbound, markOutboxDead, type Delivery } from '../outbox/outbox-attempt.js'
import { splitContent } from '../outbox/outbox.js'
import { decodePayload, encodePayload } from '../outbox/payload.js'
import { reconcileAmbiguous } from '../outbox/reconcile.js'
import type { OutboxRecord } from '../journal/records.js'

/** Handles one due record; once a part is settled, goes straight on with the part after it. */
export async function sweepOutboxRecord(engine: DurabilityEngine, delivery: Delivery, found: Versioned<OutboxRecord>): Promise<void> {
  let current: Versioned<OutboxRecord> | undefined = found
  while (current) {
    const settled = await sweepOne(engine, delivery, current)
    const next: string | null | undefined = current.record.nextPart
    if (!settled || !next) return
    const [following]: (Versioned<OutboxRecord> | undefined)[] = await engine.journal.read('outbox', [next])
    current = following && (following.record.state === 'pending' || following.record.state === 'failed') ? following : undefined
  }
}

/** Resolves to true when the record is settled as far as the order of parts goes (sent, or unknown). */
async function sweepOne(engine: DurabilityEngine, delivery: Delivery, found: Versioned<OutboxRecord>): Promise<boolean> {
  const { record } = found
  if (record.state === 'sending') {
    if (!engine.leaseIsOver(record.lease, 'outbox', record.key)) return false
    if (engine.unstarted.neverCalled(record)) return deliver(engine, delivery, found)
    return settleAmbiguous(engine, delivery, found)
  }
  if (record.state !== 'pending' && record.state !== 'failed') return false
  if (record.previousPart) {
    const waiting = await waitBehindPreviousPart(engine, found)
    if (waiting) return false
  }
  const split = await splitIfOverLimit(engine, delivery, found)
  if (!split) return false
  return deliver(engine, delivery, split)
}

/** Claims a record and makes one delivery attempt (a retry, when it had failed); true once it is sent. */
async function deliver(engine: DurabilityEngine, delivery: Delivery, found: Versioned<OutboxRecord>): Promise<boolean> {
  if (delivery.isStandby()) return refuseOnStandby(engine, found)
  const held = await claimOutbound(engine, found)
  if (!held) return false
  if (found.record.state === 'failed') engine.metrics.increment('outboxRetried')
  return (await attemptDelivery(engine, delivery, held)).outcome === 'sent'
}

/**
 * A standby of a leader-only session leaves the send to the leader: the refusal is journaled once
 * (failed, ProviderNotLeaderError) without a claim, so no retry is spent, no fencing token taken,
 * and the leader's next claim is not raced by a write on every sweep.
 */
async function refuseOnStandby(engine: DurabilityEngine, found: Versioned<OutboxRecord>): Promise<false> {
  const { record } = found
  if (record.state !== 'pending' && record.state !== 'failed') return false
  if (record.state === 'failed' && record.lastError?.code === ERROR_CODES.PROVIDER_NOT_LEADER) return false
  const now = engine.now()
  const refused: OutboxRecord = {
    ...record,
    state: 'failed',
    lastError: errorInfo(new ProviderNotLeaderError(), now),
    nextAttemptAt: now + backoffMs(engine.config.outbox.backoff, Math.max(1, record.attempts)),
    updatedAt: now,
  }
  await engine.journal.write('outbox.defer', [{ kind: 'outbox', record: refused, expectVersion: found.version }])
  return false
}

/** The process died between "about to call the provider" and "sent": skip (unknown) or resend. */
async function settleAmbiguous(engine: DurabilityEngine, delivery: Delivery, found: Versioned<OutboxRecord>): Promise<boolean> {
  const reconciled = await reconcileAmbiguous(engine, delivery, found)
  if (reconciled !== undefined) return reconciled
  const { record } = found
  if (engine.config.outbox.onAmbiguous === 'resend') {
    if (delivery.isStandby()) return refuseOnStandby(engine, found)
    const held = await claimOutbound(engine, found)
    if (!held) return false
    engine.metrics.increment('outboxAmbiguous')
    engine.events.ambiguous({ key: record.key, chatId: record.chatId })
    return (await attemptDelivery(engine, delivery, held)).outcome === 'sent'
  }
  const unknown: OutboxRecord = { ...record, state: 'unknown', lease: null, nextAttemptAt: null, updatedAt: engine.now() }
  const [result] = await engine.journal.write('outbox.markUnknown', [{ kind: 'outbox', record: unknown, expectVersion: found.version }])
  if (!result!.ok) return false
  engine.metrics.increment('outboxAmbiguous')
  engine.events.ambiguous({ key: record.key, chatId: record.chatId })
  // A later part may go out now: the unknown part is settled as far as ordering goes.
  return true
}

/**
 * A part never overtakes an earlier one. While the earlier part waits, this one is pushed back to the
 * earlier part's due time (waiting is not an attempt); if the earlier part is dead, this one dies with it.
 */
async function waitBehindPreviousPart(engine: DurabilityEngine, found: Versioned<OutboxRecord>): Promise<boolean> {
  const { record } = found
  const [previous] = await engine.journal.read('outbox', [record.previousPart!])
  const state = previous?.record.state
  if (state === 'sent' || state === 'unknown') return false
  if (state === 'dead' || previous === undefined) {
    const held = engine.hold('outbox', found)
    const why = previous ? `the earlier part "${record.previousPart}" is dead` : `the earlier part "${record.previousPart}" is gone`
    await markOutboxDead(engine, held, { message: why, code: ERROR_CODES.PREVIOUS_PART_DEAD, at: engine.now() })
    return true
  }
  // Behind a part in flight, look again at the next sweep: its settling (sent, or unknown after a
  // crash) may happen in any process. Behind a part waiting for a retry, wait as long as it does.
  const previousDue = previous.record.state === 'sending' ? 0 : previous.record.nextAttemptAt
  const waitUntil = Math.max(previousDue ?? 0, engine.now() + engine.config.pollMs)
  const deferred: OutboxRecord = { ...record, nextAttemptAt: waitUntil }
  await engine.journal.write('outbox.defer', [{ kind: 'outbox', record: deferred, expectVersion: found.version }])
  return true
}

/**
 * A journaled text over the channel's limit (an enqueued send, or one from an older version) is split
 * before it is sent: the later parts are journaled as key#2, key#3… (insert-if-absent), then this
 * record is cut down to the first part. Every step is idempotent, so a retry journals nothing twice.
 */
async function splitIfOverLimit(
  engine: DurabilityEngine,
  delivery: Delivery,
  found: Versioned<OutboxRecord>,
): Promise<Versioned<OutboxRecord> | undefined> {
  const { record } = found
  if (record.nextPart) return found
  const parts = splitContent(decodePayload(record.payload), delivery.textLimit)
  if (parts.length === 1) return found
  const now = engine.now()
  const encoded = parts.map((part) => encodePayload(part, Number.MAX_SAFE_INTEGER))
  const payloads = encoded.map((e) => ('payload' in e ? e.payload : null))
  const later: OutboxRecord[] = parts.slice(1).map((_, index) => {
    const n = index + 2
    return {
      ...record,
      key: partKey(record.key, n),
      state: 'pending',
      payload: payloads[n - 1]!,
      previousPart: partKey(record.key, n - 1),
      nextPart: n < parts.length ? partKey(record.key, n + 1) : null,
      attempts: 0,
      nextAttemptAt: null,
      lease: null,
      fencingToken: 0,
      lastError: null,
      audit: undefined,
      createdAt: now,
      updatedAt: now,
    }
  })
  const first: OutboxRecord = { ...record, payload: payloads[0]!, nextPart: partKey(record.key, 2), updatedAt: now }
  const results = await engine.journal.write('outbox.split', [
    ...later.map((part) => ({ kind: 'outbox' as const, record: part, expectVersion: 0 })),
    { kind: 'outbox' as const, record: first, expectVersion: found.version },
  ])
  engine.metrics.increment('outboxJournaled', results.slice(0, -1).filter((r) => r.ok).length)
  const last = results.at(-1)!
  return last.ok ? { record: first, version: last.version } : undefined
}
