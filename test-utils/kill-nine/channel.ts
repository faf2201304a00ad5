/**
 * The channel double of the kill -9 test, in the test's own process: it delivers the workload to the
 * bot process of the moment with webhook semantics (a delivery is acknowledged when the bot's
 * receive resolved; whatever was delivered and not acknowledged is delivered again to the next
 * process) and it is the provider the bot calls. Its log of those calls is the witness the verdict
 * reads: a call counts as made once it reached the channel, also when the process died before the
 * answer.
 *
 * Pacing: a chat's next burst goes out once its previous one was acknowledged, and new messages
 * only while fewer than WINDOW delivered ones wait for their reply, so the stream lasts across the
 * kills instead of being admitted all at once.
 */
import { deferred } from '../wait.js'
import type { KillNineProcess } from './bot-process.js'
import type { KillPhase } from './kill-plan.js'
import type { Burst, KillNineWorkload } from './workload.js'
import type { FromBot } from '../../test/fixtures/kill-nine/protocol.js'

/** Delivered messages waiting for their reply, at most. */
const WINDOW = 8
/** A delivery the bot refused (its journal did not take it) goes out again after this long. */
const REDELIVERY_AFTER_NACK_MS = 20

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

export interface MessageHistory {
  deliveries: Delivery[]
  /** The channel's counter at the first acknowledgement. */
  ackTick?: number
}

/** The kill the runner decides at a moment of the live process: none, or one after `delayMs`. */
export type KillDecision = (phase: KillPhase) => { delayMs: number } | undefined

/** The bot process the channel delivers to and answers. */
interface LiveProcess {
  process: KillNineProcess
  incarnation: number
  decide: KillDecision
}

export class ChannelDouble {
  readonly histories: MessageHistory[]
  /** The witness: every provider call, in the order the channel received them. */
  readonly sends: ChannelSend[] = []
  /** Each send key reported ambiguous ('durability:ambiguous'), how many times, and the counter at the first report. */
  readonly ambiguous = new Map<string, number>()
  readonly ambiguousAt = new Map<string, number>()
  /** Resolves once every message was acknowledged and answered. */
  readonly settled = deferred()
  #tick = 0
  #heardAt = Date.now()
  #live: LiveProcess | undefined
  #nextBurst = 0
  readonly #lastBurst = new Map<string, Burst>()
  readonly #byEvent = new Map<string, number>()
  readonly #replied = new Set<number>()
  readonly #byReply = new Map<string, number>()

  constructor(readonly workload: KillNineWorkload) {
    this.histories = workload.messages.map(() => ({ deliveries: [] }))
    for (const message of workload.messages) {
      this.#byEvent.set(message.event.id, message.index)
      this.#byReply.set(`${message.event.chatId}\n${message.reply}`, message.index)
    }
  }

  /** Delivers to `process` from now on (once it says it is ready); `decide` may kill it at each moment. */
  attach(process: KillNineProcess, incarnation: number, decide: KillDecision): void {
    this.#live = { process, incarnation, decide }
    this.#heardAt = Date.now()
    process.onMessage((message) => this.#hear(process, incarnation, message))
  }

  /** Messages acknowledged at least once. */
  get acknowledged(): number {
    return this.histories.filter((history) => history.ackTick !== undefined).length
  }

  /** Messages whose reply reached the channel at least once. */
  get replied(): number {
    return this.#replied.size
  }

  /** The message a send answers, if it answers one. */
  answered(send: { chatId: string; text: string }): number | undefined {
    return this.#byReply.get(`${send.chatId}\n${send.text}`)
  }

  /** How long the live process has been silent, in ms (since the last message it sent, or its attachment). */
  get quietMs(): number {
    return Date.now() - this.#heardAt
  }

  /** Delivered messages the channel has seen no reply to, by event id. */
  unanswered(): string[] {
    return this.histories.flatMap((history, index) =>
      history.deliveries.length > 0 && !this.#replied.has(index) ? [this.workload.messages[index]!.event.id] : [],
    )
  }

  #hear(process: KillNineProcess, incarnation: number, message: FromBot): void {
    const live = this.#live?.process === process ? this.#live : undefined
    if (live) this.#heardAt = Date.now()
    if ('ready' in message && live) {
      // Webhook semantics: what was delivered and never acknowledged comes again.
      this.histories.forEach((history, index) => history.deliveries.length > 0 && history.ackTick === undefined && this.#deliver(index))
      this.#pump()
    } else if ('admitting' in message && live) this.#maybeKill(live.decide('admission'))
    else if ('acked' in message || 'nacked' in message) this.#outcome(message, incarnation, live !== undefined)
    else if ('gate' in message && live) {
      const kill = live.decide(message.phase)
      if (kill) this.#maybeKill(kill)
      else process.send({ go: message.gate })
    } else if ('send' in message) this.#send(message, incarnation, live)
    else if ('ambiguous' in message) {
      this.ambiguous.set(message.ambiguous, (this.ambiguous.get(message.ambiguous) ?? 0) + 1)
      if (!this.ambiguousAt.has(message.ambiguous)) this.ambiguousAt.set(message.ambiguous, ++this.#tick)
    }
  }

  #outcome(message: { acked: string } | { nacked: string }, incarnation: number, live: boolean): void {
    const acked = 'acked' in message
    const index = this.#byEvent.get(acked ? message.acked : message.nacked)!
    const history = this.histories[index]!
    const delivery = history.deliveries.find((one) => one.incarnation === incarnation && one.outcome === undefined)
    if (delivery) delivery.outcome = acked ? 'acked' : 'nacked'
    if (acked) history.ackTick ??= ++this.#tick
    if (!live) return
    if (acked) return this.#pump()
    const process = this.#live!.process
    setTimeout(() => this.#live?.process === process && this.#deliver(index), REDELIVERY_AFTER_NACK_MS)
  }

  #send(message: { send: number; chatId: string; text: string }, incarnation: number, live: LiveProcess | undefined): void {
    this.sends.push({ tick: ++this.#tick, incarnation, chatId: message.chatId, text: message.text })
    const index = this.answered(message)
    if (index !== undefined) this.#replied.add(index)
    if (!live) return
    const during = live.decide('send')
    if (during) return this.#maybeKill(during)
    live.process.send({ sent: message.send, messageId: `channel-${this.sends.length}` })
    const after = live.decide('after')
    if (after) return this.#maybeKill(after)
    this.#pump()
  }

  /** Kills the live process (after `delayMs`); it is no longer answered, and its later messages are only logged. */
  #maybeKill(kill: { delayMs: number } | undefined): void {
    if (!kill || !this.#live) return
    const { process } = this.#live
    this.#live = undefined
    if (kill.delayMs > 0) setTimeout(() => process.kill(), kill.delayMs)
    else process.kill()
  }

  #pump(): void {
    const { bursts } = this.workload
    while (this.#live && this.#nextBurst < bursts.length) {
      const burst = bursts[this.#nextBurst]!
      const previous = this.#lastBurst.get(burst.chatId)
      if (previous && previous.members.some((index) => this.histories[index]!.ackTick === undefined)) break
      if (this.#waitingForReply() >= WINDOW) break
      for (const index of burst.members) this.#deliver(index)
      this.#lastBurst.set(burst.chatId, burst)
      this.#nextBurst++
    }
    if (this.acknowledged === this.histories.length && this.replied === this.histories.length) this.settled.resolve()
  }

  #waitingForReply(): number {
    return this.unanswered().length
  }

  #deliver(index: number): void {
    const live = this.#live
    if (!live) return
    this.histories[index]!.deliveries.push({ tick: ++this.#tick, incarnation: live.incarnation })
    live.process.send({ deliver: this.workload.messages[index]!.event })
  }
}
