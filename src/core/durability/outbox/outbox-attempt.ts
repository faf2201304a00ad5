/**
 * One delivery attempt of a held outbox record: call the provider (with the lease kept alive),
 * then record the outcome — sent, failed with a retry time, or dead.
 */
import { isFinalSendError, ProviderNotLeaderError, RateLimitedError } from '../../provider/provider-errors.js'
import type { OutboundContent, ProviderSendResult } from '../../provider/provider.js'
import { backoffMs } from '../backoff.js'
import { errorInfo, type DurabilityEngine } from '../engine.js'
import type { HeldRecord } from '../leases/held-record.js'
import { settlingRetry, settlingWrite } from '../run/settling-write.js'
import { decodePayload } from './payload.js'
import type { ErrorInfo, OutboxRecord } from '../journal/records.js'
import { sentRecord, type SentMarks } from './sent-marks.js'
import { nextToken } from '../leases/fencing.js'

/** The outbox's way to the provider, made by the engine from the bot's transport. */
export interface Delivery {
  readonly textLimit: number | undefined
  /** Calls the provider. The content never carries an idempotency key; `outboxKey` is for a provider that echoes it. */
  send(chatId: string, content: OutboundContent, outboxKey: string): Promise<ProviderSendResult>
  /** Whether the provider echoes the outbox key on its status callbacks (see reconcile.ts). */
  readonly echoesOutboxKey?: boolean
  /** True on a standby replica of a leader-only transport session: it must not call the provider. */
  isStandby(): boolean
  /** Runs the after('send') hooks and writes the message log for a delivered send. */
  afterSend(record: OutboxRecord, messageId: string): Promise<void>
}

export type AttemptOutcome =
  | { outcome: 'sent'; messageId: string }
  | { outcome: 'failed'; retryAt: number; error: unknown }
  | { outcome: 'dead'; error: unknown }
  | { outcome: 'lost' }

/**
 * Makes one provider call for a record held in state `sending`, and journals what happened. With
 * `marks` (a handler's send), the `sent` mark is held back to ride in the message's completion.
 */
export async function attemptDelivery(
  engine: DurabilityEngine,
  delivery: Delivery,
  held: HeldRecord<'outbox'>,
  marks?: SentMarks,
): Promise<AttemptOutcome> {
  engine.keeper.add(held)
  // A parked mark keeps its record held (its lease alive) until it landed: SentMarks lets it go.
  let parked = false
  try {
    let result: ProviderSendResult
    try {
      if (delivery.isStandby()) throw new ProviderNotLeaderError()
      engine.unstarted.calling(held.id)
      result = await delivery.send(held.record.chatId, decodePayload(held.record.payload), held.record.key)
    } catch (error) {
      return await recordFailure(engine, held, error)
    }
    if (marks) {
      parked = true
      marks.park(held, result.messageId)
    } else {
      // The provider accepted it: this outcome is known, so a blink of the journal must not lose it.
      const ok = await settlingWrite(settlingRetry(engine.config, 'outbox'), () =>
        held.update('outbox.markSent', sentRecord(engine, result.messageId)),
      )
      if (!ok) engine.metrics.increment('staleLeases')
    }
    try {
      await delivery.afterSend(held.record, result.messageId)
    } catch (error) {
      engine.events.error(error)
    }
    // The mark's wait for the message's completion starts once the send is over for the handler.
    marks?.linger()
    return { outcome: 'sent', messageId: result.messageId }
  } finally {
    if (!parked) engine.keeper.remove(held)
  }
}

/** Journals a failed provider call of a held send: failed with its retry time, or dead (a final error, its retries used up). */
export async function recordFailure(engine: DurabilityEngine, held: HeldRecord<'outbox'>, error: unknown): Promise<AttemptOutcome> {
  const now = engine.now()
  // A standby's refused attempt is not the provider failing: it does not use up a retry.
  const charged = error instanceof ProviderNotLeaderError ? 0 : 1
  const attempts = held.record.attempts + charged
  const lastError = errorInfo(error, now)
  if (isFinalSendError(error) || attempts > engine.config.outbox.retries) {
    const ok = await markOutboxDead(engine, held, lastError, attempts)
    return ok ? { outcome: 'dead', error } : { outcome: 'lost' }
  }
  const atLeastMs = error instanceof RateLimitedError ? error.retryAfterMs : 0
  const retryAt = now + backoffMs(engine.config.outbox.backoff, Math.max(1, attempts), atLeastMs)
  const ok = await settlingWrite(settlingRetry(engine.config, 'outbox'), () =>
    held.update('outbox.markFailed', (record) => ({
      ...record,
      state: 'failed',
      attempts,
      lease: null,
      nextAttemptAt: retryAt,
      lastError,
      updatedAt: now,
    })),
  )
  if (!ok) {
    engine.metrics.increment('staleLeases')
    return { outcome: 'lost' }
  }
  return { outcome: 'failed', retryAt, error }
}

/** Dead-letters a held send and tells the bot. `attempts`: the provider calls made, when this one counted. */
export async function markOutboxDead(
  engine: DurabilityEngine,
  held: HeldRecord<'outbox'>,
  lastError: ErrorInfo,
  attempts?: number,
): Promise<boolean> {
  const ok = await settlingWrite(settlingRetry(engine.config, 'outbox'), () =>
    held.update('outbox.markDead', (record) => ({
      ...record,
      state: 'dead',
      attempts: attempts ?? record.attempts,
      lease: null,
      nextAttemptAt: null,
      lastError,
      updatedAt: engine.now(),
    })),
  )
  if (!ok) {
    engine.metrics.increment('staleLeases')
    return false
  }
  engine.metrics.increment('outboxDead')
  engine.events.dead({ kind: 'outbox', id: held.id, error: lastError })
  return true
}

/** Claims a pending or failed record (or an abandoned `sending` one, to resend it) under a new token. */
export async function claimOutbound(
  engine: DurabilityEngine,
  found: { record: OutboxRecord; version: number },
): Promise<HeldRecord<'outbox'> | undefined> {
  const token = nextToken(found.record)
  const claimed: OutboxRecord = {
    ...found.record,
    state: 'sending',
    lease: engine.lease('outbox', token),
    fencingToken: token,
    nextAttemptAt: null,
    updatedAt: engine.now(),
  }
  const [result] = await engine.journal.write('outbox.claim', [{ kind: 'outbox', record: claimed, expectVersion: found.version }])
  return result!.ok ? engine.hold('outbox', { record: claimed, version: result!.version }) : undefined
}
