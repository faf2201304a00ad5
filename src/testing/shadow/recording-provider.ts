/**
 * The provider of a shadow run: it takes every send the new code makes, keeps it for the
 * comparison, and sends nothing. Inbound events come from the journal through `deliver`.
 */
import type { InboundEvent, InboundSink, IProvider, OutboundContent, ProviderSendResult } from '../../core/provider/provider.js'

/** A send the new code made, as the recording provider took it. */
export interface RecordedSend {
  /** The chat it was addressed to. */
  chatId: string
  /** What would have gone out (after the before('send') hooks). */
  content: OutboundContent
}

/** A provider that records sends instead of making them. */
export class RecordingProvider implements IProvider {
  readonly name: string
  /** No split: a text is compared whole with the recorded parts joined. */
  readonly textLimit = undefined
  #sink: InboundSink | undefined
  #sends: RecordedSend[] = []
  #ids = 0

  /** @param name the recorded provider's name, so journaled media references read back as theirs. */
  constructor(name: string) {
    this.name = name
  }

  async start(sink: InboundSink): Promise<void> {
    this.#sink = sink
  }

  async stop(): Promise<void> {
    this.#sink = undefined
  }

  /** Hands a replayed event to the bot. */
  async deliver(event: InboundEvent): Promise<void> {
    if (!this.#sink) throw new Error('RecordingProvider.deliver: the shadow bot has not started')
    await this.#sink(event)
  }

  async send(chatId: string, content: OutboundContent): Promise<ProviderSendResult> {
    this.#sends.push({ chatId, content })
    return { messageId: `shadow-${++this.#ids}` }
  }

  /** Edits, typing indicators and drafts are not journaled, so there is nothing to compare: taken and dropped. */
  async edit(): Promise<void> {}

  async typing(): Promise<void> {}

  async draft(): Promise<void> {}

  /** The sends taken since the last call, and forgets them. */
  take(): RecordedSend[] {
    const sends = this.#sends
    this.#sends = []
    return sends
  }
}
