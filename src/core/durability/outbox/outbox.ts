/**
 * The outbox: every send is journaled under its idempotency key before the provider is called, and
 * the provider's message id is recorded right after. A send whose key is already recorded is
 * answered from the outbox instead of going out again.
 *
 *   journal ─► sending ─► sent
 *                │  ▲
 *     markFailed ▼  │ claim (inline retry, sweeper)
 *              failed / pending ──► dead (final error, or retries used up)
 *   sending with its lease over (the process died mid-send) ─► unknown ('skip') or resent ('resend')
 */
import { PayloadNotJournaledError, SendDeadError, SendDeferredError } from '../../errors/errors.js'
import { ProviderNotLeaderError } from '../../provider/provider-errors.js'
import type { OutboundContent } from '../../provider/provider.js'
import type { DurabilityEngine } from '../engine.js'
import type { HeldRecord } from '../leases/held-record.js'
import { afterSettled } from '../run/after-settled.js'
import { lookupKey, quickKey, type KeyedSend, type ResolvedKey } from './outbox-key.js'
import { attemptDelivery, claimOutbound, recordFailure, type AttemptOutcome, type Delivery } from './outbox-attempt.js'
import { outboxRecords } from './outbox-records.js'
import { LIMITS } from '../limits.js'
import type { OutboxRecord } from '../journal/records.js'
import { splitContent } from './split.js'
import type { SentMarks } from './sent-marks.js'

/** What a send resolves to. */
export interface SendResult {
  /** The send's outbox key with durability; without it the `idempotencyKey` given, or ''. */
  key: string
  /** The provider's id of the (first part of the) message; null while it is not known to be sent. */
  messageId: string | null
  /** One id per part when the text was split. */
  messageIds: string[]
  /** True when the send was answered from the outbox instead of going out again. */
  deduped: boolean
}

/** A send as the bot hands it over: its chat, content, key and whether it is a replay's (KeyedSend). */
export interface OutboxSend extends KeyedSend {
  /** Runs the before('send') hooks once (a value at once when there are none). */
  beforeSend(content: OutboundContent): OutboundContent | Promise<OutboundContent>
  /** Sends without the outbox (payload too large or not encodable). */
  bypass(content: OutboundContent, reason: string): Promise<SendResult>
  /** A handler's send: where its `sent` mark waits to ride in the message's completion. */
  marks?: SentMarks | undefined
}

export { splitContent } from './split.js'

export class Outbox {
  /** Keys this process is delivering right now: the sweeper leaves them alone. */
  readonly #inFlight = new Map<string, Promise<unknown>>()

  constructor(
    private readonly engine: DurabilityEngine,
    private readonly delivery: Delivery,
  ) {}

  isInFlight(key: string): boolean {
    return this.#inFlight.has(key)
  }

  /** Journals a send and delivers it inline, retrying up to outbox.inlineMaxMs. */
  async send(send: OutboxSend): Promise<SendResult> {
    // Neither step needs a promise on the common path (a fresh derived key, no before('send') hooks).
    const quick = quickKey(send)
    const resolved = quick ?? (await lookupKey(this.engine, send))
    if ('answer' in resolved) return this.#answerFromOutbox(this.#forChat(resolved.answer, send), true)
    const hooked = send.beforeSend(send.content)
    const content = hooked instanceof Promise ? await hooked : hooked
    if (this.delivery.isStandby()) return this.#leaveToLeader(send, resolved, content)
    const records = outboxRecords(this.engine, send, resolved, splitContent(content, this.delivery.textLimit), true)
    if ('bypass' in records) return send.bypass(content, records.bypass)
    const outcome = await this.#track(
      records.map((record) => record.key),
      () => this.#journalAndDeliver(records, resolved.key, send.marks),
    )
    // The key was taken meanwhile (another holder journaled it): answer from its record, outside our
    // own in-flight mark, or a send in flight elsewhere would wait on this very promise forever.
    if ('taken' in outcome) return this.#answerFromOutbox(this.#forChat(outcome.taken, send), true)
    return outcome
  }

  /** Journals the records of a send, then delivers them in order; `taken` when the key was journaled meanwhile. */
  #journalAndDeliver(
    records: OutboxRecord[],
    key: string,
    marks: SentMarks | undefined,
  ): Promise<SendResult | { taken: OutboxRecord | undefined }> {
    this.engine.unstarted.journaling(records[0]!.key)
    const writes = records.map((record) => ({ kind: 'outbox' as const, record, expectVersion: 0 }))
    return this.engine.journal.write('outbox.journal', writes).then((results) => {
      if (!results[0]!.ok) return { taken: results[0]!.current?.record as OutboxRecord | undefined }
      this.engine.metrics.increment('outboxJournaled', results.filter((r) => r.ok).length)
      const held = this.engine.hold('outbox', { record: records[0]!, version: (results[0] as { version: number }).version })
      // A send of one part (nearly all) needs no async frame: then() on its delivery.
      if (records.length === 1)
        return this.#deliverInline(held, key, marks).then((id) => ({ key, messageId: id, messageIds: [id], deduped: false }))
      return this.#deliverParts(records, held, key)
    })
  }

  async #deliverParts(records: OutboxRecord[], first: HeldRecord<'outbox'>, key: string): Promise<SendResult> {
    const messageIds: string[] = []
    let held: HeldRecord<'outbox'> | undefined = first
    for (let n = 0; n < records.length; n++) {
      if (n > 0) held = await this.#claimByKey(records[n]!.key)
      if (!held) throw this.#deferred(key)
      messageIds.push(await this.#deliverInline(held, key))
    }
    return { key, messageId: messageIds[0] ?? null, messageIds, deduped: false }
  }

  /** Journals a send for the sweeper to deliver; a second enqueue of a key is a no-op. */
  async enqueue(send: OutboxSend): Promise<{ key: string }> {
    const resolved = quickKey(send) ?? (await lookupKey(this.engine, send))
    if ('answer' in resolved) {
      this.engine.metrics.increment('outboxDeduped')
      return { key: this.#forChat(resolved.answer, send)?.key ?? send.key.key }
    }
    return this.enqueueResolved(send, resolved, await send.beforeSend(send.content))
  }

  /** Journals a send for the sweeper, its key resolved and its content through the hooks. */
  async enqueueResolved(send: OutboxSend, resolved: ResolvedKey, content: OutboundContent): Promise<{ key: string }> {
    // Enqueued texts are journaled whole; the sweeper splits them with the same splitter.
    const records = outboxRecords(this.engine, send, resolved, [content], false)
    if ('bypass' in records) throw new PayloadNotJournaledError(resolved.key, records.bypass)
    const [result] = await this.engine.journal.write('outbox.journal', [{ kind: 'outbox', record: records[0]!, expectVersion: 0 }])
    if (result!.ok) this.engine.metrics.increment('outboxJournaled')
    else this.engine.metrics.increment('outboxDeduped')
    return { key: resolved.key }
  }

  /**
   * A send on a standby of a leader-only transport session: journaled for the leader's sweeper to
   * deliver (never a provider call here), then answered as a deferred send.
   */
  async #leaveToLeader(send: OutboxSend, resolved: ResolvedKey, content: OutboundContent): Promise<never> {
    await this.enqueueResolved(send, resolved, content)
    throw this.#deferred(resolved.key, new ProviderNotLeaderError())
  }

  /**
   * A send whose first provider call, made outside the outbox (the steps engine's) at `started`, failed:
   * journaled failed or dead, then retried inline, its key in flight here so the sweeper leaves it.
   */
  retryFailedCall(held: HeldRecord<'outbox'>, error: unknown, started: number): Promise<string> {
    return this.#track([held.id], async () => this.#retryInline(held, held.id, started, await recordFailure(this.engine, held, error)))
  }

  /** Runs `work` with `keys` marked in flight, so the sweeper does not take them meanwhile. */
  #track<T>(keys: string[], work: () => Promise<T>): Promise<T> {
    let promise: Promise<T>
    try {
      promise = work()
    } catch (error) {
      promise = Promise.reject(error)
    }
    for (const key of keys) this.#inFlight.set(key, promise)
    return afterSettled(promise, () => {
      for (const key of keys) this.#inFlight.delete(key)
    })
  }

  /**
   * Delivers a held record, retrying inline while outbox.inlineMaxMs allows; resolves to the message
   * id. `callerKey` is the key the caller sent under (a part's own key is `key#n`): errors name it.
   */
  #deliverInline(first: HeldRecord<'outbox'>, callerKey: string, marks?: SentMarks): Promise<string> {
    const started = Date.now()
    // The first attempt in a then(): a send that goes out at once costs no async frame.
    return attemptDelivery(this.engine, this.delivery, first, marks).then((result) =>
      result.outcome === 'sent' ? result.messageId : this.#retryInline(first, callerKey, started, result),
    )
  }

  /**
   * Goes on with a send whose attempt ended `firstResult` (failed: due again at its `retryAt`), retrying
   * inline while outbox.inlineMaxMs since `started` allows; resolves to the message id, or rejects with
   * SendDeadError, or SendDeferredError once the rest is the sweeper's.
   */
  async #retryInline(first: HeldRecord<'outbox'>, callerKey: string, started: number, firstResult: AttemptOutcome): Promise<string> {
    let held = first
    for (let result = firstResult; ; result = await attemptDelivery(this.engine, this.delivery, held)) {
      if (result.outcome === 'sent') return result.messageId
      if (result.outcome === 'dead') throw new SendDeadError(callerKey, describe(result.error), result.error)
      if (result.outcome === 'lost') throw this.#deferred(callerKey)
      const waitMs = Math.max(0, result.retryAt - this.engine.now())
      if (Date.now() - started + waitMs > this.engine.config.outbox.inlineMaxMs) throw this.#deferred(callerKey, result.error)
      await sleep(waitMs)
      const next = await this.#claimByKey(held.id)
      if (!next) throw this.#deferred(callerKey, result.error)
      this.engine.metrics.increment('outboxRetried')
      held = next
    }
  }

  /**
   * A send this run journaled whose journal write seemed to fail although it landed: nobody called
   * the provider, so it is claimed and delivered now (not an ambiguous send).
   */
  async #deliverUnstarted(record: OutboxRecord): Promise<SendResult> {
    return this.#track([record.key], async () => {
      const [found] = await this.engine.journal.read('outbox', [record.key])
      const held = found && this.engine.unstarted.neverCalled(found.record) ? await claimOutbound(this.engine, found) : undefined
      if (!held) return { key: record.key, messageId: null, messageIds: [], deduped: true }
      const messageId = await this.#deliverInline(held, record.key)
      return { key: record.key, messageId, messageIds: [messageId], deduped: true }
    })
  }

  /** A send left to the sweeper: counted in outboxDeferred, named by the caller's key. */
  #deferred(callerKey: string, cause?: unknown): SendDeferredError {
    this.engine.metrics.increment('outboxDeferred')
    return new SendDeferredError(callerKey, cause)
  }

  /** The provider's message ids of a journaled send's parts that went out, in order (a text split in parts has one each). */
  async #sentIds(first: OutboxRecord): Promise<string[]> {
    const ids: string[] = []
    let record: OutboxRecord | undefined = first
    for (let n = 0; record?.state === 'sent' && record.providerMessageId && n < LIMITS.splitPartsMax; n++) {
      ids.push(record.providerMessageId)
      record = record.nextPart ? (await this.engine.journal.read('outbox', [record.nextPart]))[0]?.record : undefined
    }
    return ids
  }

  /**
   * An explicit key names one send of the bot, whatever the chat: a send to another chat under a key
   * already journaled is answered from that record and nothing goes to it, which the logger is told.
   */
  #forChat(record: OutboxRecord | undefined, send: OutboxSend): OutboxRecord | undefined {
    if (record && record.chatId !== send.chatId)
      this.engine.events.warn(
        `durability: idempotency key "${record.key}" names a send to chat "${record.chatId}"; a send to chat "${send.chatId}" ` +
          `under it was answered from that record and nothing went to "${send.chatId}" (keys are per bot: make explicit keys unique per chat)`,
      )
    return record
  }

  async #claimByKey(key: string): Promise<HeldRecord<'outbox'> | undefined> {
    const [found] = await this.engine.journal.read('outbox', [key])
    if (!found || (found.record.state !== 'pending' && found.record.state !== 'failed')) return undefined
    return claimOutbound(this.engine, found)
  }

  /**
   * Answers a send from its journaled record instead of sending again. A send still on its way
   * (pending, failed, or in flight elsewhere) is the outbox's to deliver: it is delivered inline if
   * it can be claimed, and otherwise answered as journaled, so a replayed handler goes on to make
   * its later sends instead of stopping at this one.
   */
  async #answerFromOutbox(record: OutboxRecord | undefined, inline: boolean): Promise<SendResult> {
    this.engine.metrics.increment('outboxDeduped')
    if (!record) throw this.#deferred('(unknown)')
    const answer = (messageId: string | null): SendResult => ({
      key: record.key,
      messageId,
      messageIds: messageId ? [messageId] : [],
      deduped: true,
    })
    switch (record.state) {
      case 'sent': {
        const messageIds = await this.#sentIds(record)
        return { key: record.key, messageId: record.providerMessageId, messageIds, deduped: true }
      }
      case 'unknown':
        return answer(null)
      case 'dead':
        throw new SendDeadError(record.key, record.lastError?.message ?? 'dead-lettered')
      case 'sending': {
        const inFlight = this.#inFlight.get(record.key)
        if (!inFlight && inline && this.engine.unstarted.neverCalled(record)) return this.#deliverUnstarted(record)
        if (!inFlight) return answer(null)
        await inFlight.catch(() => undefined)
        const [now] = await this.engine.journal.read('outbox', [record.key])
        return now?.record.state === 'sent' ? answer(now.record.providerMessageId) : answer(null)
      }
      default: {
        if (!inline || this.#inFlight.has(record.key)) return answer(null)
        return this.#track([record.key], async () => {
          const held = await this.#claimByKey(record.key)
          if (!held) return answer(null)
          const messageId = await this.#deliverInline(held, record.key)
          return { key: record.key, messageId, messageIds: [messageId], deduped: true }
        })
      }
    }
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
