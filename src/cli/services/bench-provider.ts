/** The provider `bench` and its soak run the bot on: a mock channel that says when a reply went out. */
import { textOf } from '../../core/hooks.js'
import type { OutboundContent, ProviderSendResult } from '../../core/provider.js'
import { MockProvider } from '../../core/testing/mock-provider.js'

/** A provider that tells the bench when the reply to a message reached the channel. */
export class BenchProvider extends MockProvider {
  readonly #waiting = new Map<string, () => void>()

  /** Resolves when the reply `re:<text>` went out. */
  replyTo(text: string): Promise<void> {
    return new Promise((resolve) => this.#waiting.set(`re:${text}`, resolve))
  }

  override async send(chatId: string, content: OutboundContent): Promise<ProviderSendResult> {
    const result = await super.send(chatId, content)
    this.sent.length = 0 // the bench needs no log of what went out; a long run must not grow one
    const text = textOf(content) ?? ''
    this.#waiting.get(text)?.()
    this.#waiting.delete(text)
    return result
  }
}
