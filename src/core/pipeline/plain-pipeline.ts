/**
 * The pipeline of a bot without the `durability` key: messages are routed and handled in memory,
 * one at a time per chat, and replies go straight to the provider. Nothing of the durability engine
 * is created.
 */
import type { InboundEvent } from '../provider/provider.js'
import { ChatQueue } from '../durability/turns/chat-queue.js'
import { Dispatcher } from './dispatcher.js'
import { InFlight } from '../durability/admission/in-flight.js'
import type { BotParts, MessagePipeline } from './pipeline.js'
import { PlainSender } from './plain-sender.js'
import { LIMITS } from '../durability/limits.js'

export class PlainPipeline implements MessagePipeline {
  readonly sender: PlainSender
  readonly transportRunning = true
  readonly #inFlight = new InFlight()
  readonly #chats = new ChatQueue()
  readonly #dispatcher: Dispatcher

  constructor(private readonly parts: BotParts) {
    this.sender = new PlainSender(parts, this.#inFlight)
    this.#dispatcher = new Dispatcher(parts, this.sender)
  }

  async start(startTransport: () => Promise<void>): Promise<void> {
    await startTransport()
  }

  /** Handling starts at once; the channel is acknowledged without waiting for it. */
  async receive(event: InboundEvent): Promise<void> {
    const handling = this.#chats.run(event.chatId, () => this.#dispatcher.handleUnjournaled(event))
    void this.#inFlight.track(handling).catch((error) => this.parts.error(error))
  }

  currentOrigin(): undefined {
    return undefined
  }

  idle(timeoutMs: number): Promise<void> {
    return this.#inFlight.idle(timeoutMs)
  }

  async stop(): Promise<void> {
    await this.#inFlight.settle(LIMITS.stopTimeoutMs)
  }
}
