/**
 * Receiving: each new message (`messages.upsert` of type `notify`) is handed to the journal in the
 * order it came, and acknowledged to the sender (a read receipt, `readMessages`) only once the
 * inbox journaled it. WhatsApp does not deliver a message twice (the library acknowledged it to the
 * server when it decrypted it), so a message the journal refused is handed to it again, a few
 * times with a growing wait, before it is reported and left unread.
 */
import type { BaileysEventMap, WAMessage } from 'baileys'
import type { InboundEvent } from '../../core/provider/provider.js'
import type { BaileysSocket } from './client.js'
import { WakeableSleep } from '../shared/wakeable-sleep.js'
import { BAILEYS_LIMITS } from './limits.js'
import { inboundOf, type NormalizeContent } from './messages.js'

/** What the receiver needs from its provider. */
export interface ReceiveDeps {
  sink: (event: InboundEvent) => Promise<void>
  normalize: NormalizeContent
  /** The socket that received the message, if it is still open, for the read receipt. */
  socket: () => BaileysSocket | undefined
  readReceipts: boolean
  onError: (error: unknown) => void
}

/** Hands messages to the journal one after another. */
export class InboundReceiver {
  #tail: Promise<void> = Promise.resolve()
  #stopped = false
  /** The wait between handing a refused message over again; `stop` ends it. */
  readonly #sleeping = new WakeableSleep()

  constructor(private readonly deps: ReceiveDeps) {}

  /** Takes one `messages.upsert`; messages of other upserts wait their turn. */
  take(upsert: BaileysEventMap['messages.upsert']): void {
    // 'append' carries history and the bot's own messages from other devices: not new to the bot.
    if (upsert.type !== 'notify') return
    for (const message of upsert.messages) {
      const event = inboundOf(message, this.deps.normalize)
      if (event) this.#tail = this.#tail.then(() => this.#receive(message, event)).catch(this.deps.onError)
    }
  }

  /** Stops retrying refused messages; resolves once the message in hand is settled. */
  async stop(): Promise<void> {
    this.#stopped = true
    this.#sleeping.wake()
    await this.#tail
  }

  async #receive(message: WAMessage, event: InboundEvent): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.deps.sink(event)
        break
      } catch (error) {
        const final = (error as { retryable?: unknown }).retryable === false
        if (final || this.#stopped || attempt >= BAILEYS_LIMITS.admitAttemptsMax) throw error
        await this.#sleeping.sleep(BAILEYS_LIMITS.admitRetryBaseMs * 2 ** (attempt - 1))
      }
    }
    if (this.deps.readReceipts) await this.deps.socket()?.readMessages([message.key])
  }
}
