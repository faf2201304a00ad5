/**
 * Sends through the outbox (a bot with the `durability` key): each send is journaled under its
 * idempotency key before the provider is called. A send of a handler is keyed by its message and
 * counted on it, so the message is done only once its sends settled, and a send the journal could
 * not record makes the message replay instead.
 */
import { JournalUnavailableError } from '../../errors/errors.js'
import type { OutboundContent } from '../../provider/provider.js'
import { ChatQueue } from '../turns/chat-queue.js'
import type { DurabilityEngine } from '../engine.js'
import type { InFlight } from '../admission/in-flight.js'
import { sendKey } from './keys.js'
import type { Outbox, OutboxSend, SendResult } from './outbox.js'
import type { SendRequest, Transport } from '../port.js'
import type { SendOrigin } from '../run/send-origin.js'
import type { MessageTracing } from '../tracing.js'

export interface DurableSenderDeps {
  engine: DurabilityEngine
  transport: Transport
  outbox: Outbox
  inFlight: InFlight
  tracing: MessageTracing
  /** Runs a sweep soon: an enqueued send is delivered by the sweeper. */
  wake(): void
}

export class DurableSender {
  /** Sends to one chat keep their order while one of them is retried inline. */
  readonly #queue = new ChatQueue()
  /** Sends of fail-open messages in flight, by key: whether the provider was called for them (or a part). */
  readonly #failOpen = new Map<string, { called: boolean }>()

  constructor(private readonly deps: DurableSenderDeps) {}

  /** `hooked`: the content already through the before('send') hooks (the steps engine's send that came here after them). */
  send(request: SendRequest, hooked?: OutboundContent): Promise<SendResult> {
    const { chatId, origin } = request
    const send = this.#outboxSend(request, hooked)
    const traced = { key: send.key.key, chatId, inboundId: origin?.inboundId ?? null }
    let result = this.#recordingFailure(origin, () =>
      this.#queue.run(chatId, () => this.deps.tracing.send(traced, () => this.deps.outbox.send(send))),
    )
    if (origin?.failOpen) result = this.#orUnjournaled(result, send)
    origin?.pending.push(result.catch(() => undefined))
    return this.deps.inFlight.track(result)
  }

  enqueue(request: SendRequest): Promise<{ key: string }> {
    const { origin } = request
    const send = this.#outboxSend(request)
    let enqueued = this.#recordingFailure(origin, () => this.deps.outbox.enqueue(send))
    if (origin?.failOpen) enqueued = this.#orUnjournaled(enqueued, send)
    const journaled = enqueued.then((result) => {
      this.deps.wake()
      return result
    })
    origin?.pending.push(journaled.catch(() => undefined))
    return journaled
  }

  /**
   * Runs a send of a message's handler, once the sent marks of its earlier sends landed; a journal
   * failure is kept on the origin, so the message is released instead of marked done. Once one send
   * of a message failed so, its later sends are refused too: the replay makes them all, in the
   * handler's order.
   */
  #recordingFailure<T>(origin: SendOrigin | undefined, send: () => Promise<T>): Promise<T> {
    // A fail-open message has no replay to wait for: each of its sends tries the outbox again.
    if (origin?.journalFailure && !origin.failOpen) {
      return Promise.reject(
        new JournalUnavailableError(
          `an earlier send of inbound "${origin.inboundId}" could not be journaled; this one waits for its replay`,
          origin.journalFailure,
        ),
      )
    }
    let sending: Promise<T>
    try {
      // The marks of the message's earlier sends land first: a crash after this point finds them
      // recorded, as if they had never waited, and a send under one of their keys is answered from them.
      sending = origin?.marks.busy ? origin.marks.drain().then(send) : send()
    } catch (error) {
      sending = Promise.reject(error)
    }
    if (!origin) return sending
    // A catch, not an async function: one promise per send instead of two.
    return sending.catch((error: unknown) => {
      if (error instanceof JournalUnavailableError) origin.journalFailure ??= error
      throw error
    })
  }

  /** Right before the provider is called for `outboxKey`: a fail-open send called so never goes out again unjournaled. */
  calling(outboxKey: string): void {
    if (this.#failOpen.size === 0) return
    for (const [key, send] of this.#failOpen) if (outboxKey === key || outboxKey.startsWith(`${key}#`)) send.called = true
  }

  /**
   * A fail-open message's send that the outbox could not journal (or look up) goes out unjournaled
   * through its bypass, unless the provider was already called for it or one of its parts.
   */
  #orUnjournaled<T extends { key: string }>(sending: Promise<T>, send: OutboxSend): Promise<T | SendResult> {
    const key = send.key.key
    const tracked = { called: false }
    this.#failOpen.set(key, tracked)
    return sending
      .catch(async (error: unknown) => {
        if (!(error instanceof JournalUnavailableError) || tracked.called) throw error
        return send.bypass(await send.beforeSend(send.content), 'failOpen: the journal could not record it')
      })
      .finally(() => this.#failOpen.delete(key))
  }

  #outboxSend({ chatId, content, idempotencyKey, origin }: SendRequest, alreadyHooked?: OutboundContent): OutboxSend {
    const { transport, engine } = this.deps
    const ordinal = origin ? ++origin.sends : 0
    const key = sendKey(idempotencyKey, origin ? { inboundId: origin.inboundId, ordinal } : undefined)
    const hooks = (c: OutboundContent) => transport.beforeSend(chatId, c, key.key)
    // The hooks run once per send: a fail-open send that falls back to its bypass reuses their result.
    let hooked: ReturnType<typeof hooks> | undefined = alreadyHooked
    return {
      chatId,
      content,
      key,
      replay: origin?.replay ?? false,
      marks: origin?.marks,
      beforeSend: origin?.failOpen || alreadyHooked !== undefined ? (c: OutboundContent) => (hooked ??= hooks(c)) : hooks,
      bypass: async (c: OutboundContent, reason: string): Promise<SendResult> => {
        engine.metrics.increment('outboxBypassed')
        engine.events.warn(`durability: the send "${key.key}" bypasses the outbox (${reason}); it is not journaled`)
        const { messageId } = await transport.send(chatId, c, null)
        await transport.afterSend(chatId, c, null, messageId)
        return { key: key.key, messageId, messageIds: [messageId], deduped: false }
      },
    }
  }
}
