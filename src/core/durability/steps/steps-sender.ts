/**
 * A handler's send on the steps engine. Its common case (the first run of a message, a key derived
 * from it, one part) is one `journal` step, fenced by the message's token, then the provider call;
 * the sent mark waits in the message's origin to ride in its settle. Everything else (a replay's
 * send, which may be answered from the outbox; an explicit or random key; a split text; a standby;
 * an enqueue, a traced bot's send) takes the outbox's own path (durable-sender.ts), over the same records.
 */
import type { DurabilityEngine } from '../engine.js'
import type { DurableSender } from '../outbox/durable-sender.js'
import { sendKey } from '../outbox/keys.js'
import { recordFailure, type Delivery } from '../outbox/outbox-attempt.js'
import { quickKey, type KeyedSend } from '../outbox/outbox-key.js'
import { outboxRecords } from '../outbox/outbox-records.js'
import type { SendResult } from '../outbox/outbox.js'
import { splitContent } from '../outbox/split.js'
import type { OutboxRecord } from '../journal/records.js'
import type { SendRequest, Transport } from '../port.js'
import { JournalUnavailableError, SendDeadError, SendDeferredError } from '../../errors/errors.js'
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
  /** Whether the bot is traced: every send then takes the outbox's path, whose sends are spans. */
  traced: boolean
  /** Runs a sweep soon: a send left failed is the sweeper's. */
  wake(): void
}

export class StepsSender {
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
        return this.#deliver(record, content, origin)
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

  async #deliver(record: OutboxRecord, content: OutboundContent, origin: StepsOrigin): Promise<SendResult> {
    const { engine, transport } = this.deps
    const { key, chatId } = record
    engine.unstarted.calling(key)
    let messageId: string
    try {
      ;({ messageId } = await transport.send(chatId, content, key))
    } catch (error) {
      throw await this.#failed(record, error)
    }
    origin.sent.push({ key, messageId })
    await transport.afterSend(chatId, content, key, messageId).catch((error: unknown) => engine.events.error(error))
    return { key, messageId, messageIds: [messageId], deduped: false }
  }

  /** A provider call that failed: journaled failed (the sweeper retries it) or dead, as the outbox's own attempt does. */
  async #failed(record: OutboxRecord, error: unknown): Promise<Error> {
    const { engine } = this.deps
    const [found] = await engine.journal.read('outbox', [record.key])
    const outcome = found ? await recordFailure(engine, engine.hold('outbox', found), error) : ({ outcome: 'lost' } as const)
    if (outcome.outcome === 'dead') return new SendDeadError(record.key, error instanceof Error ? error.message : String(error), error)
    this.deps.wake()
    engine.metrics.increment('outboxDeferred')
    return new SendDeferredError(record.key, error)
  }
}

/** A send answered from its journaled record. */
function answered(record: OutboxRecord): SendResult {
  const messageId = record.state === 'sent' ? record.providerMessageId : null
  return { key: record.key, messageId, messageIds: messageId ? [messageId] : [], deduped: true }
}
