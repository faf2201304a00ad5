/**
 * A handler's send on the steps engine. Its common case (the first run of a message, a key derived
 * from it, one part) is one `journal` step, fenced by the message's token, then the provider call;
 * the sent mark waits in the message's origin to ride in its settle; a failed call is retried inline
 * by the outbox's rules (outbox.inlineMaxMs), a chat's later calls behind it. Everything else (a replay's
 * send, which may be answered from the outbox; an explicit or random key; a split text; a standby;
 * an enqueue, a traced bot's send) takes the outbox's own path (durable-sender.ts), over the same records.
 */
import type { DurabilityEngine } from '../engine.js'
import type { DurableSender } from '../outbox/durable-sender.js'
import { sendKey } from '../outbox/keys.js'
import type { Delivery } from '../outbox/outbox-attempt.js'
import { quickKey, type KeyedSend } from '../outbox/outbox-key.js'
import { outboxRecords } from '../outbox/outbox-records.js'
import type { Outbox, SendResult } from '../outbox/outbox.js'
import { splitContent } from '../outbox/split.js'
import type { OutboxRecord } from '../journal/records.js'
import type { SendRequest, Transport } from '../port.js'
import { JournalUnavailableError, SendDeferredError } from '../../errors/errors.js'
import type { OutboundContent } from '../../provider/provider.js'
import type { JournalSteps } from './journal-steps.js'
import { StepsOrigin } from './steps-run.js'

export interface StepsSenderDeps {
  engine: DurabilityEngine
  steps: JournalSteps
  transport: Transport
  delivery: Delivery
  /** The outbox's own path, for every send that is not the common case. */
  outboxPath: DurableSender
  /** The outbox: a failed provider call is retried inline by its rules. */
  outbox: Outbox
  /** Whether the bot is traced: every send then takes the outbox's path, whose sends are spans. */
  traced: boolean
  /** Runs a sweep soon: a send left failed is the sweeper's. */
  wake(): void
}

export class StepsSender {
  /** Each chat's provider calls in this process, one after another: the last one, and how many wait or run. */
  readonly #chats = new Map<string, ChatDeliveries>()

  constructor(private readonly deps: StepsSenderDeps) {}

  send(request: SendRequest): Promise<SendResult> {
    const { origin } = request
    if (
      !(origin instanceof StepsOrigin) ||
      origin.replay ||
      origin.journalFailure ||
      request.idempotencyKey !== undefined ||
      this.deps.traced
    )
      return this.deps.outboxPath.send(request)
    const sending = this.#send(request, origin)
    origin.pending.push(
      sending.catch((error: unknown) => {
        if (error instanceof JournalUnavailableError) origin.journalFailure ??= error
      }),
    )
    return sending
  }

  async #send(request: SendRequest, origin: StepsOrigin): Promise<SendResult> {
    const { engine, transport, delivery } = this.deps
    const { chatId } = request
    const key = sendKey(undefined, { inboundId: origin.inboundId, ordinal: ++origin.sends })
    const keyed: KeyedSend = { chatId, content: request.content, key, replay: false }
    const resolved = quickKey(keyed)!
    const hooked = transport.beforeSend(chatId, request.content, key.key)
    const content = hooked instanceof Promise ? await hooked : hooked
    const parts = splitContent(content, transport.textLimit)
    const records = parts.length === 1 && !delivery.isStandby() ? outboxRecords(engine, keyed, resolved, parts, true) : undefined
    if (!records || 'bypass' in records) {
      // Not the common case after all: the outbox's path makes this send, under the same ordinal.
      origin.sends--
      return this.deps.outboxPath.send(request, content)
    }
    const record = records[0]!
    engine.unstarted.journaling(record.key)
    const outcome = await new Promise<Parameters<Parameters<JournalSteps['journal']>[2]>[0]>((resolve) =>
      this.deps.steps.journal({ id: origin.inboundId, token: origin.token }, records, resolve),
    )
    switch (outcome.type) {
      case 'journaled':
        engine.metrics.increment('outboxJournaled')
        return this.#inOrder(record, content, origin)
      case 'recorded':
        engine.metrics.increment('outboxDeduped')
        return answered(outcome.record)
      case 'fenced':
        engine.metrics.increment('staleLeases')
        throw new JournalUnavailableError(`inbound "${origin.inboundId}" passed to another run: its send "${key.key}" was not made`)
      case 'unavailable':
        throw new JournalUnavailableError(`the outbox could not journal the send "${key.key}"`, outcome.error)
    }
  }

  /**
   * Delivers once the chat's earlier provider calls in this process are done, one retried inline
   * included: sends to a chat keep their order (their keys were taken in the handler's order already).
   */
  #inOrder(record: OutboxRecord, content: OutboundContent, origin: StepsOrigin): Promise<SendResult> {
    const chatId = record.chatId
    let chat = this.#chats.get(chatId)
    if (!chat) this.#chats.set(chatId, (chat = { waiting: 0, last: undefined }))
    chat.waiting++
    const deliver = () => this.#deliver(record, content, origin, chat)
    const delivering = chat.last ? chat.last.then(deliver, deliver) : deliver()
    chat.last = delivering
    return delivering
  }

  async #deliver(record: OutboxRecord, content: OutboundContent, origin: StepsOrigin, chat: ChatDeliveries): Promise<SendResult> {
    const { engine, transport } = this.deps
    const { key, chatId } = record
    try {
      engine.unstarted.calling(key)
      const started = Date.now()
      let messageId: string
      try {
        ;({ messageId } = await transport.send(chatId, content, key))
      } catch (error) {
        return await this.#retry(record, error, started)
      }
      origin.sent.push({ key, messageId })
      await transport.afterSend(chatId, content, key, messageId).catch((error: unknown) => engine.events.error(error))
      return { key, messageId, messageIds: [messageId], deduped: false }
    } finally {
      if (--chat.waiting === 0 && this.#chats.get(chatId) === chat) this.#chats.delete(chatId)
    }
  }

  /**
   * A provider call that failed: journaled failed or dead, as the outbox's own attempt does, then
   * retried inline by the outbox while outbox.inlineMaxMs allows (its sent mark and after('send') are
   * the outbox's then).
   */
  async #retry(record: OutboxRecord, error: unknown, started: number): Promise<SendResult> {
    const { engine } = this.deps
    const [found] = await engine.journal.read('outbox', [record.key])
    try {
      if (!found) {
        engine.metrics.increment('outboxDeferred')
        throw new SendDeferredError(record.key, error)
      }
      const messageId = await this.deps.outbox.retryFailedCall(engine.hold('outbox', found), error, started)
      return { key: record.key, messageId, messageIds: [messageId], deduped: false }
    } catch (failure) {
      // Left to the sweeper: it runs soon rather than at its next poll.
      if (failure instanceof SendDeferredError) this.deps.wake()
      throw failure
    }
  }
}

/** A chat's provider calls in this process: the last one started, and how many are waiting or running. */
interface ChatDeliveries {
  waiting: number
  last: Promise<unknown> | undefined
}

/** A send answered from its journaled record. */
function answered(record: OutboxRecord): SendResult {
  const messageId = record.state === 'sent' ? record.providerMessageId : null
  return { key: record.key, messageId, messageIds: messageId ? [messageId] : [], deduped: true }
}
