/** Sends without the outbox (a bot without the `durability` key): hooks, split, provider, after-hooks, message log. */
import type { SendOptions } from '../bot/context.js'
import type { SendResult } from '../durability/port.js'
import { splitContent } from '../durability/outbox/split.js'
import type { OutboundContent } from '../provider/provider.js'
import { ChatQueue } from '../durability/turns/chat-queue.js'
import type { InFlight } from '../durability/admission/in-flight.js'
import { afterDelivery, type BotParts, type Sender } from './pipeline.js'

export class PlainSender implements Sender {
  /** Sends to one chat go out one after another, in the order they were made. */
  readonly #queue = new ChatQueue()

  constructor(
    private readonly parts: BotParts,
    private readonly inFlight: InFlight,
  ) {}

  send(chatId: string, content: OutboundContent, options: SendOptions): Promise<SendResult> {
    return this.inFlight.track(this.#queue.run(chatId, () => this.#deliver(chatId, content, options.idempotencyKey ?? null)))
  }

  /** Without a journal an enqueue is a send nobody waits for; its failure is reported, not retried. */
  async enqueue(chatId: string, content: OutboundContent, options: SendOptions): Promise<{ key: string }> {
    this.send(chatId, content, options).catch((error) => this.parts.error(error))
    return { key: options.idempotencyKey ?? '' }
  }

  async #deliver(chatId: string, content: OutboundContent, key: string | null): Promise<SendResult> {
    const rewritten = await this.parts.hooks.runBefore({ chatId, content, key })
    const messageIds: string[] = []
    for (const part of splitContent(rewritten, this.parts.provider.textLimit)) {
      const { messageId } = await this.parts.provider.send(chatId, part)
      messageIds.push(messageId)
      await afterDelivery(this.parts, chatId, part, key, messageId)
    }
    return { key: key ?? '', messageId: messageIds[0] ?? null, messageIds, deduped: false }
  }
}
