/**
 * The engine behind the port (port.ts): an inbound event is admitted into the inbox before any
 * handler runs (admission.ts), run under its lease in its chat's turn (message-run.ts), and its
 * replies go through the outbox (durable-sender.ts). The sweeper delivers due sends and replays
 * unfinished messages, retention purges what is past its time, and the instance heartbeat says
 * this replica is alive.
 */
import { Admission } from './admission/admission.js'
import type { DurabilityBackend } from './journal/backend.js'
import { ChatQueue } from './turns/chat-queue.js'
import { ChatTurns } from './turns/chat-turns.js'
import { resolveDurabilityConfig, type DurabilityConfig, type DurabilityOptions, type Namespace } from './config.js'
import { DurableSender } from './outbox/durable-sender.js'
import { DurabilityEngine, type EngineEvents } from './engine.js'
import { runFailOpen } from './admission/fail-open-run.js'
import { Durability } from './operations/facade.js'
import type { HeldRecord } from './leases/held-record.js'
import { InFlight } from './admission/in-flight.js'
import { MemoryDurability } from './memory/memory-durability.js'
import { runMessage, type Completing, type MessageRunDeps } from './run/message-run.js'
import { Outbox } from './outbox/outbox.js'
import type { Delivery } from './outbox/outbox-attempt.js'
import { decodePayload } from './outbox/payload.js'
import type { EnginePort, MessageRunner, SendRequest, SendResult, Transport } from './port.js'
import { reportDelivery } from './outbox/reconcile.js'
import { Sweeper } from './sweep/sweeper.js'
import { NO_TRACING, type MessageTracing } from './tracing.js'
import { TransportSession } from './session/transport-session.js'
import { EngineFrame, FramedEngine } from './engine-frame.js'
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

export class MessageEngine extends FramedEngine implements EnginePort {
  readonly backend: DurabilityBackend
  readonly config: DurabilityConfig
  readonly state: DurabilityEngine
  readonly durability: Durability
  readonly #events: EngineEvents
  readonly #inFlight = new InFlight()
  /** Messages of one chat run one after another in this process (message-run.ts: the chat's lane). */
  readonly #lanes = new ChatQueue()
  readonly #sender: DurableSender
  readonly #admission: Admission
  readonly #sweeper: Sweeper
  /** The backend's start and stop, the sweep loop, the heartbeat, retention (engine-frame.ts). */
  protected readonly frame: EngineFrame
  /** Chat turns across replicas (durability.coordination), or undefined: this process's chat queue only. */
  readonly #turns: ChatTurns | undefined
  readonly #session: TransportSession
  readonly #delivery: Delivery
  readonly #tracing: MessageTracing
  readonly #transportName: string
  /** What every run of an inbound record needs: made once, not per message. */
  readonly #runDeps: MessageRunDeps

  constructor({ options, namespace, scope, events, transport, runner }: MessageEngineDeps) {
    super()
    this.backend = options.backend ?? new MemoryDurability()
    this.config = resolveDurabilityConfig(options, namespace, this.backend)
    this.#events = events
    this.#tracing = options.tracing ?? NO_TRACING
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
    const wake = () => this.frame.wake()
    this.#sender = new DurableSender({ engine: state, transport, outbox, inFlight: this.#inFlight, tracing: this.#tracing, wake })
    const runUnjournaled = (event: InboundEvent, recordId: string) =>
      void this.#inFlight.track(this.#lanes.run(event.chatId, () => runFailOpen(this.#runDeps, event, recordId))).catch(events.error)
    const recovering = () => this.frame.recovery.recovering()
    this.#admission = new Admission({ engine: state, transport, tracing: this.#tracing, turns: this.#turns, runUnjournaled, recovering })
    this.#sweeper = new Sweeper(state, outbox, this.#delivery)
    this.frame = new EngineFrame({
      state,
      botId: namespace.botId,
      session: this.#session,
      inFlight: this.#inFlight,
      sweep: () =>
        this.#sweeper.sweep(
          (held) => this.#run(held, undefined),
          () => this.#inFlight.hasRoom,
        ),
      sweeps: this.#sweeper,
      // Messages waiting for a chat turn held elsewhere stop waiting (their leases pass them on).
      halting: () => this.#turns?.abandonWaits(),
      stopping: async () => this.#turns?.stop(),
    })
    this.durability = new Durability(state, wake)
    this.#runDeps = { engine: state, runner, lanes: this.#lanes, completions: new ChatQueue() }
  }

  protected admitValid(event: InboundEvent): Promise<void> {
    return this.#admission.admit(event, (held) => this.#run(held, event))
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
    return this.frame.idle(timeoutMs, () => this.#sweeper.hasWorkNow())
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
