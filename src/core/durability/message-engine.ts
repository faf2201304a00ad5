/**
 * The engine behind the port (port.ts): an inbound event is admitted into the inbox before any
 * handler runs (admission.ts), run under its lease in its chat's turn (message-run.ts), and its
 * replies go through the outbox (durable-sender.ts). The sweeper delivers due sends and replays
 * unfinished messages, retention purges what is past its time, and the instance heartbeat says
 * this replica is alive.
 */
import { Admission } from './admission/admission.js'
import { BackPressure } from './admission/back-pressure.js'
import type { DurabilityBackend } from './journal/backend.js'
import { ChatQueue } from './turns/chat-queue.js'
import { ChatTurns } from './turns/chat-turns.js'
import { resolveDurabilityConfig, type DurabilityConfig, type DurabilityOptions, type Namespace } from './config.js'
import { DurableSender } from './outbox/durable-sender.js'
import { DurabilityEngine, type EngineEvents } from './engine.js'
import { runFailOpen } from './admission/fail-open-run.js'
import { refuseInvalidEvent } from './admission/event-check.js'
import { Durability } from './operations/facade.js'
import type { HeldRecord } from './leases/held-record.js'
import { InFlight } from './admission/in-flight.js'
import { InstanceBeat } from './instances.js'
import { LIMITS } from './limits.js'
import { BackgroundLoop } from './loop.js'
import { MemoryDurability } from './memory/memory-durability.js'
import { runMessage, type Completing, type MessageRunDeps } from './run/message-run.js'
import { Outbox } from './outbox/outbox.js'
import type { Delivery } from './outbox/outbox-attempt.js'
import { decodePayload } from './outbox/payload.js'
import type { EnginePort, MessageRunner, SendRequest, SendResult, Transport } from './port.js'
import { reportDelivery } from './outbox/reconcile.js'
import { Retention } from './retention/retention.js'
import { Sweeper } from './sweep/sweeper.js'
import { Recovery } from './sweep/recovery.js'
import { NO_TRACING, type MessageTracing } from './tracing.js'
import { TransportSession } from './session/transport-session.js'
import { claimUnscopedBackend, releaseUnscopedBackend } from './journal/unscoped-sharing.js'
import { untilHalted } from './until-halted.js'
import type { DeliveryReport, InboundEvent } from '../provider/provider.js'

export interface MessageEngineDeps {
  options: DurabilityOptions
  namespace: Namespace
  /** The scope id of the bot's journal. */
  scope: string
  /** The bot's events: `durability:dead`, `:ambiguous`, `:reconciled`, its warnings and errors. */
  events: EngineEvents
  transport: Transport
  runner: MessageRunner
}

export class MessageEngine implements EnginePort {
  readonly backend: DurabilityBackend
  readonly config: DurabilityConfig
  readonly state: DurabilityEngine
  readonly durability: Durability
  readonly #events: EngineEvents
  readonly #inFlight = new InFlight()
  readonly #backPressure: BackPressure
  /** Messages of one chat run one after another in this process (message-run.ts: the chat's lane). */
  readonly #lanes = new ChatQueue()
  readonly #sender: DurableSender
  readonly #admission: Admission
  readonly #sweeper: Sweeper
  readonly #beat: InstanceBeat
  readonly #sweepLoop: BackgroundLoop
  /** Holds admissions back while the start's sweep has not got through (recovery.ts). */
  readonly #recovery: Recovery
  readonly #beatLoop: BackgroundLoop
  readonly #retention: Retention
  /** Chat turns across replicas (durability.coordination), or undefined: this process's chat queue only. */
  readonly #turns: ChatTurns | undefined
  readonly #session: TransportSession
  readonly #delivery: Delivery
  readonly #tracing: MessageTracing
  readonly #transportName: string
  /** What every run of an inbound record needs: made once, not per message. */
  readonly #runDeps: MessageRunDeps

  constructor({ options, namespace, scope, events, transport, runner }: MessageEngineDeps) {
    this.backend = options.backend ?? new MemoryDurability()
    this.config = resolveDurabilityConfig(options, namespace, this.backend)
    this.#events = events
    this.#tracing = options.tracing ?? NO_TRACING
    this.#backPressure = new BackPressure(this.#inFlight, events.warn)
    this.#transportName = transport.name
    const state = (this.state = new DurabilityEngine(this.backend, this.config, scope, events))
    this.#turns = this.config.coordination ? new ChatTurns(state, this.config.coordination.turnLeaseMs) : undefined
    this.#session = new TransportSession(state, transport)
    this.#delivery = {
      textLimit: transport.textLimit,
      echoesOutboxKey: transport.echoesOutboxKey,
      send: (chatId, content, outboxKey) => {
        this.#sender.calling(outboxKey)
        return transport.send(chatId, content, outboxKey)
      },
      isStandby: () => this.#session.isStandby(),
      afterSend: (record, messageId) => transport.afterSend(record.chatId, decodePayload(record.payload), record.key, messageId),
    }
    const outbox = new Outbox(state, this.#delivery)
    const wake = () => this.#wake()
    this.#sender = new DurableSender({ engine: state, transport, outbox, inFlight: this.#inFlight, tracing: this.#tracing, wake })
    const runUnjournaled = (event: InboundEvent, recordId: string) =>
      void this.#inFlight.track(this.#lanes.run(event.chatId, () => runFailOpen(this.#runDeps, event, recordId))).catch(events.error)
    const recovering = () => this.#recovery.recovering()
    this.#admission = new Admission({ engine: state, transport, tracing: this.#tracing, turns: this.#turns, runUnjournaled, recovering })
    this.#sweeper = new Sweeper(state, outbox, this.#delivery)
    this.#beat = new InstanceBeat(
      state,
      namespace.botId,
      () => this.#sweeper.lastSweepAt,
      () => this.#sweeper.takenBack,
    )
    this.#sweepLoop = new BackgroundLoop(
      'sweeper',
      () => this.config.pollMs,
      () => this.#sweepOnce(),
      events.error,
    )
    this.#recovery = new Recovery(this.#sweepLoop)
    this.#beatLoop = new BackgroundLoop(
      'instance-heartbeat',
      () => LIMITS.instanceBeatMs,
      () => this.#beat.beat(),
      events.error,
    )
    this.#retention = new Retention(state, events.error)
    this.durability = new Durability(state, wake)
    this.#runDeps = { engine: state, runner, lanes: this.#lanes, completions: new ChatQueue() }
  }

  /**
   * Resolves too when the backend halts meanwhile (a crashed test backend: its first sweep may
   * replay a message that crashes the process), and idle() then says so.
   */
  start(startTransport: () => Promise<void>): Promise<void> {
    return untilHalted(this.backend, this.#start(startTransport), 'resolve')
  }

  async #start(startTransport: () => Promise<void>): Promise<void> {
    claimUnscopedBackend(this.backend, this.state.scopeId)
    await this.backend.start().catch((error: unknown) => {
      releaseUnscopedBackend(this.backend, this.state.scopeId)
      throw error
    })
    await this.state.clock.sync()
    this.#beatLoop.start()
    // Retention's first pass comes before the first sweep: a restarted bot takes up its backlog
    // before anything it runs (a run that crashes the process would otherwise stop it for good).
    await this.#retention.start()
    // The first sweep runs before the bot takes new messages: what a dead run of this instance left
    // is queued in its chats first, so a new message never overtakes an earlier one of its chat.
    await this.#recovery.firstSweep(() => this.#sweepOnce(), this.#events.error)
    // What a dead earlier run left is on the heartbeat at once, not a beat later.
    const taken = this.#sweeper.takenBack
    if (this.#beat.tookOver || taken.inbox + taken.outbox > 0) this.#beatLoop.kick()
    this.#sweepLoop.start(false)
    await this.#session.start(startTransport)
  }

  get transportRunning(): boolean {
    return this.#session.running
  }

  get busy(): boolean {
    return this.#inFlight.size > 0
  }

  /** Resolves once `event` is journaled (and, past LIMITS.inFlightMax, once there is room: back-pressure.ts). */
  admit(event: InboundEvent): Promise<void> {
    const refused = refuseInvalidEvent(event, this.#events.error)
    if (refused) return refused
    return this.#backPressure.acknowledge(this.#admission.admit(event, (held) => this.#run(held, event)))
  }

  delivered(report: DeliveryReport): Promise<void> {
    return reportDelivery(this.state, this.#delivery, report)
  }

  send(request: SendRequest): Promise<SendResult> {
    return this.#sender.send(request)
  }

  enqueue(request: SendRequest): Promise<{ key: string }> {
    return this.#sender.enqueue(request)
  }

  /** Idle once nothing is in flight and the sweeper finds nothing it could work on now. */
  idle(timeoutMs: number): Promise<void> {
    const dueWork = async () => {
      await this.#sweepLoop.settled()
      return this.#sweeper.hasWorkNow()
    }
    return untilHalted(
      this.backend,
      this.#inFlight.idle(timeoutMs, dueWork, () => this.#wake()),
      'reject',
    )
  }

  /** A bot whose backend halted (a crashed test backend) has nothing left to stop: it resolves at once. */
  stop(): Promise<void> {
    return untilHalted(this.backend, this.#stop(), 'resolve')
  }

  async #stop(): Promise<void> {
    // Messages waiting for a chat turn held elsewhere stop waiting (their leases pass them on).
    this.#turns?.abandonWaits()
    await this.#inFlight.settle(LIMITS.stopTimeoutMs)
    const error = this.#events.error
    await this.#session.stop().catch(error)
    await Promise.all([this.#sweepLoop.stop(), this.#beatLoop.stop(), this.#retention.stop()])
    await this.state.keeper.stop()
    await this.#turns?.stop()
    await this.#beat.remove().catch(error)
    await this.backend.stop()
    releaseUnscopedBackend(this.backend, this.state.scopeId)
  }

  /** One sweep; the records it claims run here, as replays. */
  async #sweepOnce(): Promise<void> {
    await this.#sweeper.sweep(
      (held) => this.#run(held, undefined),
      () => this.#backPressure.hasRoom,
    )
    this.#recovery.done()
  }

  /** Runs a sweep soon (after a replay, a retry or an enqueue). */
  #wake(): void {
    this.#sweepLoop.kick()
  }

  /** Runs an inbound record this process holds (`live`: the event just admitted; none on a replay). */
  #run(held: HeldRecord<'inbox'>, live: InboundEvent | undefined): void {
    // Held from now on, not from when its turn in the chat comes: a message queued behind a slow
    // handler keeps its lease through the heartbeat, and the sweeper never claims it from us.
    this.state.keeper.add(held)
    const { id, chatId } = held.record
    // A replay joins its chat's lane here (a live message joined at its admission).
    if (!live) this.state.tails.enter(chatId, id)
    const deps = this.#runDeps
    const tracing = this.#tracing
    // Without a tracer no traced message and no wrapping closure are made: this runs once per message.
    const handle =
      tracing === NO_TRACING
        ? () => runMessage(deps, held, live)
        : () => {
            const message = { inboundId: held.id, chatId: held.record.chatId, provider: this.#transportName, replay: !live }
            return tracing.handle(message, () => runMessage(deps, held, live))
          }
    // The lane moves on once the handler's effects settled; the message's work ends with its completion.
    const run = () => this.#lanes.run(chatId, handle).then(settledLater)
    // One then() releases the record, reports a failure and ends the in-flight count (not finally(),
    // catch() and a then() of the in-flight set's own: five promises).
    const release = () => {
      this.state.keeper.remove(held)
      this.state.tails.leave(chatId, id)
      this.#inFlight.forget(work)
    }
    const work: Promise<void> = (this.#turns ? this.#inTurn(this.#turns, held, run) : run()).then(release, (error: unknown) => {
      release()
      this.#events.error(error)
    })
    this.#inFlight.add(work)
  }

  /**
   * Runs a message once it holds its chat's turn. The turn is awaited before the chat queue, so a
   * message this process claims from a dead replica, earlier in the chat than one it already runs,
   * is ordered by the turn alone and never waits behind a message that waits for it.
   */
  async #inTurn(turns: ChatTurns, held: HeldRecord<'inbox'>, run: () => Promise<void>): Promise<void> {
    const turn = await turns.take(held)
    if (!turn) return
    try {
      await run()
    } finally {
      await turns.release(turn)
    }
  }
}

/** The rest of a message's run once its chat's lane moved on: its completion, when it has one in flight. */
function settledLater(completing: Completing | undefined): Promise<void> | undefined {
  return completing?.settled
}
