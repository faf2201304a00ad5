/**
 * The channel of a failover test: it streams messages into whichever bot process is up now
 * (test/fixtures/replicas/replica.ts, through the Redis backend fixture) and delivers each again
 * until a bot acknowledges it, as a webhook is retried on an error or a dead connection. A bot that
 * is killed, or not started yet, is waited for. Every limit is a count or a deadline.
 */
import type { InboundEvent } from '../../src/core/provider/provider.js'
import type { ReplicaProcess } from '../fixtures/replicas/replica-process.js'

/** A delivery not acknowledged in this time is given up and tried again (a frozen or dead bot). */
const DELIVERY_TIMEOUT_MS = 15_000
/** The pause before a delivery is tried again, so a refusing bot is not hammered. */
const REDELIVERY_PAUSE_MS = 100
/** How long one message may take to be acknowledged, redeliveries included. */
const MESSAGE_DEADLINE_MS = 180_000

/** What the channel did. */
export interface ChannelCounts {
  deliveries: number
  /** Deliveries after the first of a message: refusals (fail-closed) and deliveries to a dead bot. */
  redeliveries: number
  /** Refusals by a live bot (its journal write failed as retryable). */
  refused: number
}

/**
 * What the channel saw of a chat's order: a message acknowledged before another of its chat was
 * delivered the first time came first in that chat, and its reply must go out first.
 */
export interface ChannelOrder {
  /** Whether `earlier` was acknowledged before `later` was first delivered. */
  before(earlier: string, later: string): boolean
}

export class Channel implements ChannelOrder {
  /** The bot deliveries go to; undefined while there is none. */
  bot: ReplicaProcess | undefined
  readonly counts: ChannelCounts = { deliveries: 0, redeliveries: 0, refused: 0 }
  readonly #acked: string[] = []
  readonly #onAck: ((acked: number) => void)[] = []
  /** Resolved while the channel delivers; a pending promise while it is held (`hold`). */
  #open: Promise<void> = Promise.resolve()
  #release: () => void = () => {}
  /** A count of the channel's events (first deliveries, acknowledgements): their order, without a clock. */
  #tick = 0
  readonly #firstDelivered = new Map<string, number>()
  readonly #ackedAt = new Map<string, number>()

  /** How many messages have been acknowledged. */
  get acked(): number {
    return this.#acked.length
  }

  before(earlier: string, later: string): boolean {
    const [acked, delivered] = [this.#ackedAt.get(earlier), this.#firstDelivered.get(later)]
    return acked !== undefined && delivered !== undefined && acked < delivered
  }

  /** Calls `listener` with the count after each acknowledgement. */
  onAck(listener: (acked: number) => void): void {
    this.#onAck.push(listener)
  }

  /**
   * Holds the stream from the `acked`-th acknowledgement on: no message is delivered for the first
   * time until `release()` (deliveries already under way go on). A test holds it while it sets up a
   * window, so the stream cannot run out before the window opens, however fast the bot acknowledges.
   */
  holdAfter(acked: number): void {
    let held = false
    this.onAck((count) => {
      if (held || count < acked) return
      held = true
      this.#open = new Promise((resolve) => (this.#release = resolve))
    })
  }

  /** Ends a hold (`holdAfter`). */
  release(): void {
    this.#open = Promise.resolve()
    this.#release()
  }

  /**
   * Streams `next(0)`, `next(1)`, … in order, `concurrency` at a time, until `next` returns
   * undefined; each sender pauses `pauseMs` after each acknowledgement (a steady flow rather than a
   * burst). Resolves once every message given was acknowledged.
   */
  async stream(next: (n: number) => InboundEvent | undefined, options: { concurrency: number; pauseMs?: number }): Promise<void> {
    let n = 0
    const sender = async () => {
      for (let event = next(n++); event !== undefined; event = next(n++)) {
        await this.#open
        await this.#deliver(event)
        if (options.pauseMs) await pause(options.pauseMs)
      }
    }
    await Promise.all(Array.from({ length: options.concurrency }, sender))
  }

  async #deliver(event: InboundEvent): Promise<void> {
    const deadline = Date.now() + MESSAGE_DEADLINE_MS
    for (let attempt = 0; Date.now() < deadline; attempt++) {
      const bot = this.bot
      if (bot === undefined || bot.gone) {
        await pause(REDELIVERY_PAUSE_MS)
        continue
      }
      this.counts.deliveries++
      if (attempt > 0) this.counts.redeliveries++
      if (!this.#firstDelivered.has(event.id)) this.#firstDelivered.set(event.id, this.#tick++)
      let timer: NodeJS.Timeout | undefined
      const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), DELIVERY_TIMEOUT_MS)))
      const outcome = await Promise.race([bot.deliver(event), timeout])
      clearTimeout(timer)
      if (outcome === 'acked') {
        this.#ackedAt.set(event.id, this.#tick++)
        this.#acked.push(event.id)
        for (const listener of this.#onAck) listener(this.#acked.length)
        return
      }
      if (outcome === 'nacked') this.counts.refused++
      await pause(REDELIVERY_PAUSE_MS)
    }
    throw new Error(`${event.id} was not acknowledged within ${MESSAGE_DEADLINE_MS} ms`)
  }
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
