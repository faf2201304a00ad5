/**
 * The steps engine (issue 40): the port's engine (port.ts) over a store's steps (journal-steps.ts).
 * A message is admitted by one `admit` (claimed, or queued behind its chat's unfinished message),
 * its handler's sends are journaled by `journal` (steps-sender.ts), and its run ends with one
 * `settle` that hands its chat's next message over (steps-run.ts); the sweep takes back what is
 * due (steps-sweep.ts). The journal orders a chat: no lane, turn or completion chain of this process.
 *
 * It runs beside the engine of message-engine.ts, with the same frame (the backend's start and stop,
 * the instance heartbeat, retention, the transport session, back-pressure) and the same records, so
 * every operator verb reads what it wrote. It is chosen by engine-choice.ts.
 */
import { Durability } from '../operations/facade.js'
import { InFlight } from '../admission/in-flight.js'
import { runFailOpen } from '../admission/fail-open-run.js'
import { resolveDurabilityConfig, type DurabilityConfig } from '../config.js'
import { DurabilityEngine } from '../engine.js'
import { EngineFrame, FramedEngine } from '../engine-frame.js'
import type { DurabilityBackend } from '../journal/backend.js'
import type { InboxRecord } from '../journal/records.js'
import type { MessageEngineDeps } from '../message-engine.js'
import { DurableSender } from '../outbox/durable-sender.js'
import { Outbox } from '../outbox/outbox.js'
import type { Delivery } from '../outbox/outbox-attempt.js'
import { decodePayload } from '../outbox/payload.js'
import { reportDelivery } from '../outbox/reconcile.js'
import type { EnginePort, SendRequest, SendResult, Transport } from '../port.js'
import { TransportSession } from '../session/transport-session.js'
import { Sweeper } from '../sweep/sweeper.js'
import { NO_TRACING, type MessageTracing } from '../tracing.js'
import { ChatQueue } from '../turns/chat-queue.js'
import type { DeliveryReport, InboundEvent } from '../../provider/provider.js'
import { AloneRuns } from './alone-runs.js'
import { HeldLeases } from './held-leases.js'
import { LostClaims } from './lost-claims.js'
import type { JournalSteps, StepClaim } from './journal-steps.js'
import { StepsAdmission } from './steps-admission.js'
import { runClaimed, type StepsRunDeps } from './steps-run.js'
import { StepsSender } from './steps-sender.js'
import { StepsSweep } from './steps-sweep.js'

export class StepsEngine extends FramedEngine implements EnginePort {
  readonly backend: DurabilityBackend
  readonly config: DurabilityConfig
  readonly state: DurabilityEngine
  readonly durability: Durability
  readonly #deps: MessageEngineDeps
  readonly #inFlight = new InFlight()
  readonly #admission: StepsAdmission
  /** The live events of messages queued behind their chat's unfinished one, run with them once handed over. */
  readonly #queuedLive = new Map<string, InboundEvent>()
  readonly #tracing: MessageTracing
  readonly #leases: HeldLeases
  readonly #session: TransportSession
  readonly #sender: StepsSender
  readonly #outboxPath: DurableSender
  readonly #delivery: Delivery
  readonly #sweep: StepsSweep
  readonly #alone: AloneRuns
  /** The backend's start and stop, the sweep loop, the heartbeat, retention (engine-frame.ts). */
  protected readonly frame: EngineFrame
  readonly #retryTimers = new Set<ReturnType<typeof setTimeout>>()
  readonly #runDeps: StepsRunDeps

  constructor(deps: MessageEngineDeps, backend: DurabilityBackend, steps: JournalSteps) {
    super()
    const { options, namespace, scope, events, transport, runner } = deps
    this.#deps = deps
    const tracing = (this.#tracing = options.tracing ?? NO_TRACING)
    this.backend = backend
    this.config = resolveDurabilityConfig(options, namespace, backend)
    const state = (this.state = new DurabilityEngine(backend, this.config, scope, events))
    this.#session = new TransportSession(state, transport)
    const delivery = deliveryOf(transport, this.#session, (key) => this.#outboxPath.calling(key))
    this.#delivery = delivery
    const outbox = new Outbox(state, delivery)
    const wake = () => this.frame.wake()
    this.#outboxPath = new DurableSender({ engine: state, transport, outbox, inFlight: this.#inFlight, tracing, wake })
    this.#sender = new StepsSender({
      engine: state,
      steps,
      transport,
      delivery,
      outboxPath: this.#outboxPath,
      outbox,
      traced: tracing !== NO_TRACING,
      wake,
    })
    this.#alone = new AloneRuns({ wake, warn: (message) => events.warn(message), holdMs: () => this.config.inbox.leaseMs })
    const leases = (this.#leases = new HeldLeases(state))
    const lost = new LostClaims(state)
    const sends = new Sweeper(state, outbox, delivery, false)
    this.#sweep = new StepsSweep(state, steps, sends, { alone: this.#alone, lost, holds: (id) => leases.holds(id) })
    this.frame = new EngineFrame({
      state,
      botId: namespace.botId,
      session: this.#session,
      inFlight: this.#inFlight,
      sweep: async () => void (await this.#sweepOnce()),
      sweeps: this.#sweep,
      loops: [leases.heartbeat()],
      halting: () => {
        for (const timer of this.#retryTimers) clearTimeout(timer)
        this.#alone.stop()
      },
    })
    this.durability = new Durability(state, wake)
    this.#admission = new StepsAdmission({
      engine: state,
      steps,
      transport,
      tracing,
      claim: () => this.#claim(),
      recovering: () => this.frame.recovery.recovering(),
      runs: (id) => leases.holds(id),
      run: (record, event) => this.#run(record, event),
      queued: (id, event) => this.#queuedLive.set(id, event),
      runUnjournaled: (event, id) => {
        const failOpen = { engine: state, runner, lanes: new ChatQueue(), completions: new ChatQueue() }
        this.#inFlight.track(runFailOpen(failOpen, event, id)).catch(events.error)
      },
    })
    this.#runDeps = {
      engine: state,
      steps,
      runner,
      claim: () => this.#claim(),
      runNext: (record) => this.#run(record),
      wakeAt: (at) => this.#wakeAt(at),
      lostClaims: lost,
    }
  }

  protected admitValid(event: InboundEvent): Promise<void> {
    return this.#admission.admit(event)
  }

  delivered(report: DeliveryReport): Promise<void> {
    return reportDelivery(this.state, this.#delivery, report)
  }

  send(request: SendRequest): Promise<SendResult> {
    return this.#inFlight.track(this.#sender.send(request))
  }

  enqueue(request: SendRequest): Promise<{ key: string }> {
    return this.#outboxPath.enqueue(request)
  }

  /** Idle once nothing is in flight and a sweep finds nothing due. */
  idle(timeoutMs: number): Promise<void> {
    return this.frame.idle(timeoutMs, async () => (await this.#sweepOnce()) > 0)
  }

  /** A claim of this process now: its instance, this run, the inbox's lease. */
  #claim(): StepClaim {
    const state = this.state
    return { owner: this.config.instanceId, incarnation: state.incarnation, leaseMs: this.config.inbox.leaseMs, now: state.now() }
  }

  /** One sweep; the messages it takes back run here. Resolves to how many it took. */
  #sweepOnce(): Promise<number> {
    return this.#sweep.sweep(
      this.#claim(),
      (record, alone) => this.#run(record, undefined, alone),
      () => this.#inFlight.hasRoom,
    )
  }

  #wakeAt(at: number): void {
    const timer = setTimeout(
      () => {
        this.#retryTimers.delete(timer)
        this.frame.wake()
      },
      Math.max(0, at - this.state.now()),
    )
    timer.unref?.()
    this.#retryTimers.add(timer)
  }

  /**
   * Runs a message this process claimed: the live event when it was just admitted (or queued with
   * it). While a last run waits to run alone (alone-runs.ts), it waits, its lease held; `alone`: that last run.
   */
  #run(record: InboxRecord, admitted?: InboundEvent, alone = false): void {
    // A claim found again after its answer came late (lost-claims.ts) runs once.
    if (this.#leases.holds(record.id)) return
    const live = admitted ?? this.#queuedLive.get(record.id)
    this.#queuedLive.delete(record.id)
    this.#leases.add(record)
    if (!this.#alone.closed || alone) return this.#start(record, live)
    const held: Promise<void> = this.#alone.opened().then(() => {
      this.#inFlight.forget(held)
      this.#start(record, live)
    })
    this.#inFlight.add(held)
  }

  #start(record: InboxRecord, live: InboundEvent | undefined): void {
    // A message whose first run was charged at its claim has no earlier sends: its keys need no lookup.
    const replay = record.attempts > 1
    // Without a tracer no traced message and no wrapping closure are made: this runs once per message.
    const tracing = this.#tracing
    this.#alone.started()
    const running =
      tracing === NO_TRACING
        ? runClaimed(this.#runDeps, record, live, replay)
        : tracing.handle({ inboundId: record.id, chatId: record.chatId, provider: this.#deps.transport.name, replay: !live }, () =>
            runClaimed(this.#runDeps, record, live, replay),
          )
    const work: Promise<void> = running.then(
      () => this.#release(record, work),
      (error: unknown) => {
        this.#release(record, work)
        this.#deps.events.error(error)
      },
    )
    this.#inFlight.add(work)
  }

  #release(record: InboxRecord, work: Promise<void>): void {
    this.#leases.delete(record.id)
    this.#inFlight.forget(work)
    this.#alone.ended(record.id)
  }
}

/** The outbox's way to the provider, from the bot's transport; `calling` is told right before each call. */
function deliveryOf(transport: Transport, session: TransportSession, calling: (outboxKey: string) => void): Delivery {
  return {
    textLimit: transport.textLimit,
    echoesOutboxKey: transport.echoesOutboxKey,
    send: (chatId, content, outboxKey) => {
      calling(outboxKey)
      return transport.send(chatId, content, outboxKey)
    },
    isStandby: () => session.isStandby(),
    afterSend: (record, messageId) => transport.afterSend(record.chatId, decodePayload(record.payload), record.key, messageId),
  }
}
