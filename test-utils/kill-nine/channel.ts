/**
 * The channel double of the kill -9 test, in the test's own process: it delivers the workload to the
 * bot process of the moment with webhook semantics (a delivery is acknowledged when the bot's
 * receive resolved; whatever was delivered and not acknowledged is delivered again to the next
 * process) and it is the provider the bot calls. Its log (channel-log.ts) is the witness the
 * verdict reads: a call counts as made once it reached the channel, also when the process died
 * before the answer, and so does an acknowledgement.
 *
 * Pacing: process k is first handed the bursts of stages k and k + 1 (workload.ts), so the stream
 * lasts across the kills and every process meets messages it never saw; the last process gets the
 * rest. Within that, a chat's next burst goes out once its previous one was acknowledged.
 */
import { deferred } from '../wait.js'
import { ChannelLog } from './channel-log.js'
import type { KillNineProcess } from './bot-process.js'
import type { KillPhase } from './kill-plan.js'
import type { Burst } from './workload.js'
import type { FromBot } from '../../test/fixtures/kill-nine/protocol.js'

/** Process k is handed the stages up to k + STAGES_AHEAD. */
const STAGES_AHEAD = 1
/** A delivery the bot refused (its journal did not take it) goes out again after this long. */
const REDELIVERY_AFTER_NACK_MS = 20

/** The kill the runner decides at a moment of the live process: none, or one after `delayMs`. */
export type KillDecision = (phase: KillPhase) => { delayMs: number } | undefined

/** The bot process the channel delivers to and answers. */
interface LiveProcess {
  process: KillNineProcess
  incarnation: number
  decide: KillDecision
}

export class ChannelDouble extends ChannelLog {
  /** Resolves once every message was acknowledged and answered. */
  readonly allAnswered = deferred()
  #heardAt = Date.now()
  #live: LiveProcess | undefined
  /** Bursts handed over at least once. */
  readonly #delivered = new Set<Burst>()
  /** Each chat's last burst handed over. */
  readonly #lastBurst = new Map<string, Burst>()

  /** Delivers to `process` from now on (once it says it is ready); `decide` may kill it at each moment. */
  attach(process: KillNineProcess, incarnation: number, decide: KillDecision): void {
    this.#live = { process, incarnation, decide }
    this.#heardAt = Date.now()
    process.onMessage((message) => this.#hear(process, incarnation, message))
  }

  /** How long the live process has been silent, in ms (since the last message it sent, or its attachment). */
  get quietMs(): number {
    return Date.now() - this.#heardAt
  }

  #hear(process: KillNineProcess, incarnation: number, message: FromBot): void {
    const live = this.#live?.process === process ? this.#live : undefined
    if (live) this.#heardAt = Date.now()
    if ('ready' in message && live) {
      // Webhook semantics: what was delivered and never acknowledged comes again.
      this.histories.forEach((history, index) => history.deliveries.length > 0 && history.ackTick === undefined && this.#deliver(index))
      this.#pump()
    } else if ('admitting' in message && live) this.#maybeKill(live.decide('admission'))
    else if ('acked' in message || 'nacked' in message) this.#heardOutcome(message, incarnation, live !== undefined)
    else if ('gate' in message && live) {
      const kill = live.decide(message.phase)
      if (kill) this.#maybeKill(kill)
      else process.send({ go: message.gate })
    } else if ('send' in message) this.#heardSend(message, incarnation, live)
    else if ('ambiguous' in message) this.tookBack(message.ambiguous, incarnation)
  }

  #heardOutcome(message: { acked: string } | { nacked: string }, incarnation: number, live: boolean): void {
    const acked = 'acked' in message
    const index = this.outcome(acked ? message.acked : message.nacked, incarnation, acked ? 'acked' : 'nacked')
    if (!live) return
    if (acked) return this.#pump()
    const process = this.#live!.process
    setTimeout(() => this.#live?.process === process && this.#deliver(index), REDELIVERY_AFTER_NACK_MS)
  }

  #heardSend(message: { send: number; chatId: string; text: string }, incarnation: number, live: LiveProcess | undefined): void {
    this.sent(message, incarnation)
    if (!live) return
    const during = live.decide('in-call')
    if (during) return this.#maybeKill(during)
    live.process.send({ sent: message.send, messageId: `channel-${this.sends.length}` })
    const after = live.decide('after-call')
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

  /** Hands over every burst the live process may have: its stage has come, and its chat's previous burst was acknowledged. */
  #pump(): void {
    const live = this.#live
    if (!live) return
    const waiting = new Set<string>()
    for (const burst of this.workload.bursts) {
      if (burst.stage > live.incarnation + STAGES_AHEAD) break
      if (this.#delivered.has(burst) || waiting.has(burst.chatId)) continue
      const previous = this.#lastBurst.get(burst.chatId)
      if (previous && previous.members.some((index) => this.histories[index]!.ackTick === undefined)) {
        waiting.add(burst.chatId)
        continue
      }
      for (const index of burst.members) this.#deliver(index)
      this.#delivered.add(burst)
      this.#lastBurst.set(burst.chatId, burst)
    }
    if (this.settled) this.allAnswered.resolve()
  }

  #deliver(index: number): void {
    const live = this.#live
    if (!live) return
    this.delivered(index, live.incarnation)
    live.process.send({ deliver: this.workload.messages[index]!.event })
  }
}
