/**
 * The channel double's log (channel.ts), the kill -9 test's witness: every delivery and its outcome,
 * every provider call the channel received, and every send the bot reported taken back after a crash
 * ('durability:ambiguous'), each stamped with the channel's own event counter and the bot process it
 * came from. The verdict (verdict.ts) reads nothing else.
 */
import type { KillNineWorkload } from './workload.js'

export interface Delivery {
  /** The channel's event counter when it went out. */
  tick: number
  /** Which bot process (0 = the first) it went to. */
  incarnation: number
  outcome?: 'acked' | 'nacked'
}

/** One provider call the channel received. */
export interface ChannelSend {
  tick: number
  incarnation: number
  chatId: string
  text: string
}

/** One 'durability:ambiguous' report: the send under `key` was taken back after a crash, to be sent again. */
export interface TakeBack {
  key: string
  tick: number
  incarnation: number
}

export interface MessageHistory {
  deliveries: Delivery[]
  /** The channel's counter at the first acknowledgement. */
  ackTick?: number
}

export class ChannelLog {
  readonly histories: MessageHistory[]
  /** Every provider call, in the order the channel received them. */
  readonly sends: ChannelSend[] = []
  /** Each send key reported ambiguous, how many times. */
  readonly ambiguous = new Map<string, number>()
  /** The same reports, in order. */
  readonly takenBack: TakeBack[] = []
  #tick = 0
  readonly #byEvent = new Map<string, number>()
  readonly #byReply = new Map<string, number>()
  readonly #replied = new Set<number>()

  constructor(readonly workload: KillNineWorkload) {
    this.histories = workload.messages.map(() => ({ deliveries: [] }))
    for (const message of workload.messages) {
      this.#byEvent.set(message.event.id, message.index)
      this.#byReply.set(`${message.event.chatId}\n${message.reply}`, message.index)
    }
  }

  /** Message `index` went out to process `incarnation`. */
  delivered(index: number, incarnation: number): void {
    this.histories[index]!.deliveries.push({ tick: ++this.#tick, incarnation })
  }

  /** Process `incarnation` acknowledged (or refused) the event `eventId`; returns the message's index. */
  outcome(eventId: string, incarnation: number, outcome: 'acked' | 'nacked'): number {
    const index = this.#byEvent.get(eventId)!
    const history = this.histories[index]!
    const delivery = history.deliveries.find((one) => one.incarnation === incarnation && one.outcome === undefined)
    if (delivery) delivery.outcome = outcome
    if (outcome === 'acked') history.ackTick ??= ++this.#tick
    return index
  }

  /** Process `incarnation` called the provider. */
  sent(send: { chatId: string; text: string }, incarnation: number): void {
    this.sends.push({ tick: ++this.#tick, incarnation, chatId: send.chatId, text: send.text })
    const index = this.answered(send)
    if (index !== undefined) this.#replied.add(index)
  }

  /** Process `incarnation` reported the send under `key` ambiguous. */
  tookBack(key: string, incarnation: number): void {
    this.ambiguous.set(key, (this.ambiguous.get(key) ?? 0) + 1)
    this.takenBack.push({ key, tick: ++this.#tick, incarnation })
  }

  /** Messages acknowledged at least once. */
  get acknowledged(): number {
    return this.histories.filter((history) => history.ackTick !== undefined).length
  }

  /** Messages whose reply reached the channel at least once. */
  get replied(): number {
    return this.#replied.size
  }

  /** Whether every message was acknowledged and answered. */
  get settled(): boolean {
    return this.acknowledged === this.histories.length && this.replied === this.histories.length
  }

  /** The message a send answers, if it answers one. */
  answered(send: { chatId: string; text: string }): number | undefined {
    return this.#byReply.get(`${send.chatId}\n${send.text}`)
  }

  /** Delivered messages the channel has seen no reply to, by event id. */
  unanswered(): string[] {
    return this.histories.flatMap((history, index) =>
      history.deliveries.length > 0 && !this.#replied.has(index) ? [this.workload.messages[index]!.event.id] : [],
    )
  }
}
