/** The provider `bench` and its soak run the bot on: a mock channel that says when a reply went out. */
import { textOf } from '../../core/bot/hooks.js'
import type { OutboundContent, ProviderSendResult } from '../../core/provider/provider.js'
import { MockProvider } from '../../testing/mock-provider.js'

/** The soak's replies: `re:s<n>`, the reply to its n-th message. */
const SOAK_REPLY = /^re:s(\d+)$/

/** A provider that tells the bench when the reply to a message reached the channel. */
export class BenchProvider extends MockProvider {
  readonly #waiting = new Map<string, () => void>()
  /** The highest message number answered so far in each chat (the soak's replies). */
  readonly #lastAnswered = new Map<string, number>()
  /** Replies that reached a chat after the reply to a later message of it: a broken chat order. */
  outOfOrder = 0

  /** Resolves when the reply `re:<text>` went out. */
  replyTo(text: string): Promise<void> {
    return new Promise((resolve) => this.#waiting.set(`re:${text}`, resolve))
  }

  override async send(chatId: string, content: OutboundContent): Promise<ProviderSendResult> {
    const result = await super.send(chatId, content)
    this.sent.length = 0 // the bench needs no log of what went out; a long run must not grow one
    const text = textOf(content) ?? ''
    this.#checkOrder(chatId, text)
    this.#waiting.get(text)?.()
    this.#waiting.delete(text)
    return result
  }

  #checkOrder(chatId: string, text: string): void {
    const match = SOAK_REPLY.exec(text)
    if (!match) return
    const n = Number(match[1])
    const last = this.#lastAnswered.get(chatId) ?? -1
    if (n < last) this.outOfOrder++
    else this.#lastAnswered.set(chatId, n)
  }
}
