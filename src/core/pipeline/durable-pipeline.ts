/**
 * The pipeline of a bot with the `durability` key: the same route-run-send steps as the plain one,
 * inside the journals. The engine (durability/message-engine.ts) does the journaling behind one
 * port (durability/port.ts); this side gives it the bot's transport (the provider, its media codec,
 * the send hooks) and its message runner (routing and handlers), and tracks which message a
 * handler's `bot.send` belongs to.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { journalEvent, replayedEvent } from '../provider/media.js'
import type { InboundEvent } from '../provider/provider.js'
import { createEngine } from '../durability/engine-choice.js'
import type {
  Durability,
  DurabilityOptions,
  EngineEvents,
  EnginePort,
  Handled,
  JournaledMessage,
  MessageRunner,
  Namespace,
  SendOrigin,
  Transport,
} from '../durability/port.js'
import { Dispatcher } from './dispatcher.js'
import { afterDelivery, type BotParts, type MessagePipeline, type Sender } from './pipeline.js'

export interface DurablePipelineDeps {
  parts: BotParts
  options: DurabilityOptions
  namespace: Namespace
  /** The bot's `durability:dead`, `durability:ambiguous` and `durability:reconciled` events. */
  events: Pick<EngineEvents, 'dead' | 'ambiguous' | 'reconciled'>
}

export class DurablePipeline implements MessagePipeline {
  readonly engine: EnginePort
  /** `bot.durability`. */
  readonly durability: Durability
  readonly sender: Sender
  /**
   * The message being handled, so that bot.send / bot.enqueue inside a handler get derived keys too.
   * Only a durable bot creates it: async context tracking has a cost on every promise.
   */
  readonly #origin = new AsyncLocalStorage<SendOrigin>()

  constructor({ parts, options, namespace, events }: DurablePipelineDeps) {
    // The sender reaches the engine when a handler sends, by then made: the runner's dispatcher needs it first.
    this.sender = {
      send: (chatId, content, { idempotencyKey }, origin) => this.engine.send({ chatId, content, idempotencyKey, origin }),
      enqueue: (chatId, content, { idempotencyKey }, origin) => this.engine.enqueue({ chatId, content, idempotencyKey, origin }),
    }
    const engine = (this.engine = createEngine({
      options,
      namespace,
      scope: parts.scope,
      events: { ...events, warn: parts.warn, error: parts.error },
      transport: transportOf(parts),
      runner: this.#runner(parts),
    }))
    this.durability = engine.durability
    this.delivered = (report) => engine.delivered(report)
  }

  /** A delivery report from the provider's status callbacks (see durability/outbox/reconcile.ts). */
  readonly delivered: MessagePipeline['delivered']

  start(startTransport: () => Promise<void>): Promise<void> {
    return this.engine.start(startTransport)
  }

  get transportRunning(): boolean {
    return this.engine.transportRunning
  }

  receive(event: InboundEvent): Promise<void> {
    return this.engine.admit(event)
  }

  currentOrigin(): SendOrigin | undefined {
    return this.#origin.getStore()
  }

  idle(timeoutMs: number): Promise<void> {
    return this.engine.idle(timeoutMs)
  }

  async stop(): Promise<void> {
    await this.engine.stop()
    // Async context tracking costs every promise of the process, bot or not, while any store is on.
    // Off once no handler can still call bot.send (a run that outlived the stop timeout keeps it).
    if (!this.engine.busy) this.#origin.disable()
  }

  /** Routing and handlers, as the engine runs them: a handler's sends carry its message's origin. */
  #runner(parts: BotParts): MessageRunner {
    const dispatcher = new Dispatcher(parts, this.sender)
    const origins = this.#origin
    return {
      async handle(message: JournaledMessage, origin: SendOrigin): Promise<Handled> {
        const event = message.live ?? replayedEvent(message.journaled, parts.provider)
        const route =
          message.live && !message.replay ? await dispatcher.routeArrival(event, message.id) : await dispatcher.route(event, message.id)
        if (route.type === 'fed-before') return route
        const { unrecorded } = await origins.run(origin, () => dispatcher.run(route, event, message.id, origin))
        return { type: 'ran', unrecorded }
      },
    }
  }
}

/** The provider, its media codec and the send hooks, as the engine's transport. */
function transportOf(parts: BotParts): Transport {
  const { provider } = parts
  return {
    name: provider.name,
    textLimit: provider.textLimit,
    echoesOutboxKey: provider.echoesOutboxKey === true,
    session: provider.session,
    isLeader: provider.isLeader?.bind(provider),
    stop: () => provider.stop(),
    journalEvent: (event, mediaRefs) => journalEvent(event, provider, { mediaRefs, warn: parts.warn }),
    replayedEvent: (journaled) => replayedEvent(journaled, provider),
    beforeSend: (chatId, content, key) => parts.hooks.applyBefore({ chatId, content, key }),
    send: (chatId, content, outboxKey) =>
      outboxKey !== null && provider.echoesOutboxKey ? provider.send(chatId, content, { outboxKey }) : provider.send(chatId, content),
    afterSend: (chatId, content, key, messageId) => afterDelivery(parts, chatId, content, key, messageId),
  }
}
