/**
 * What both engines (message-engine.ts, steps/steps-engine.ts) do around their messages, once: the
 * backend's start and stop, retention, the first sweep before any new message (recovery.ts), the
 * sweep loop and the instance heartbeat, the transport session, and `idle()`. An engine gives it
 * its sweep and its own parts (the steps engine's lease heartbeat, the message engine's chat turns).
 */
import type { DurabilityEngine } from './engine.js'
import { BackPressure } from './admission/back-pressure.js'
import { refuseInvalidEvent } from './admission/event-check.js'
import type { InFlight } from './admission/in-flight.js'
import { InstanceBeat } from './instances.js'
import { claimUnscopedBackend, releaseUnscopedBackend } from './journal/unscoped-sharing.js'
import { LIMITS } from './limits.js'
import { BackgroundLoop } from './loop.js'
import { Retention } from './retention/retention.js'
import type { TransportSession } from './session/transport-session.js'
import { Recovery } from './sweep/recovery.js'
import { untilHalted } from './until-halted.js'
import type { EnginePort } from './port.js'
import type { InboundEvent } from '../provider/provider.js'

/** What an engine's sweeps did, as the instance heartbeat tells it. */
export interface SweepRecord {
  /** When the last pass ran, on the store's clock. */
  readonly lastSweepAt: number | null
  /** What the passes took back of earlier runs' leases. */
  readonly takenBack: { inbox: number; outbox: number }
}

export interface EngineFrameDeps {
  state: DurabilityEngine
  botId: string
  session: TransportSession
  inFlight: InFlight
  /** One pass of the engine's sweep: what is due is taken back and run here. */
  sweep(): Promise<void>
  /** What its passes did. */
  sweeps: SweepRecord
  /** The engine's own background loops, started after the first sweep and stopped with the frame's. */
  loops?: readonly BackgroundLoop[]
  /** Called first on stop, before the work in flight is waited for (waits that would outlive the stop end). */
  halting?(): void
  /** Called on stop once the loops stopped and the leases were given up. */
  stopping?(): Promise<void>
}

export class EngineFrame {
  /** Holds admissions back while the start's sweep has not got through (recovery.ts). */
  readonly recovery: Recovery
  readonly #deps: EngineFrameDeps
  readonly #sweepLoop: BackgroundLoop
  readonly #beat: InstanceBeat
  readonly #beatLoop: BackgroundLoop
  readonly #retention: Retention
  readonly #backPressure: BackPressure

  constructor(deps: EngineFrameDeps) {
    this.#deps = deps
    const { state, sweeps } = deps
    const error = state.events.error
    this.#backPressure = new BackPressure(deps.inFlight, state.events.warn)
    this.#sweepLoop = new BackgroundLoop(
      'sweeper',
      () => state.config.pollMs,
      () => this.#sweepOnce(),
      error,
    )
    this.recovery = new Recovery(this.#sweepLoop)
    this.#beat = new InstanceBeat(
      state,
      deps.botId,
      () => sweeps.lastSweepAt,
      () => sweeps.takenBack,
    )
    this.#beatLoop = new BackgroundLoop(
      'instance-heartbeat',
      () => LIMITS.instanceBeatMs,
      () => this.#beat.beat(),
      error,
    )
    this.#retention = new Retention(state, error)
  }

  /**
   * Resolves too when the backend halts meanwhile (a crashed test backend: its first sweep may
   * replay a message that crashes the process), and idle() then says so.
   */
  start(startTransport: () => Promise<void>): Promise<void> {
    return untilHalted(this.#deps.state.backend, this.#start(startTransport), 'resolve')
  }

  async #start(startTransport: () => Promise<void>): Promise<void> {
    const { state, sweeps } = this.#deps
    const backend = state.backend
    claimUnscopedBackend(backend, state.scopeId)
    await backend.start().catch((error: unknown) => {
      releaseUnscopedBackend(backend, state.scopeId)
      throw error
    })
    await state.clock.sync()
    this.#beatLoop.start()
    // Retention's first pass comes before the first sweep: a restarted bot takes up its backlog
    // before anything it runs (a run that crashes the process would otherwise stop it for good).
    await this.#retention.start()
    // The first sweep runs before the bot takes new messages: what a dead run of this instance left
    // is queued in its chats first, so a new message never overtakes an earlier one of its chat.
    await this.recovery.firstSweep(() => this.#sweepOnce(), state.events.error)
    // What a dead earlier run left is on the heartbeat at once, not a beat later.
    const taken = sweeps.takenBack
    if (this.#beat.tookOver || taken.inbox + taken.outbox > 0) this.#beatLoop.kick()
    this.#sweepLoop.start(false)
    for (const loop of this.#deps.loops ?? []) loop.start(false)
    await this.#deps.session.start(startTransport)
  }

  /** Whether the channel's transport runs here (a standby of a leader-only session has none). */
  get transportRunning(): boolean {
    return this.#deps.session.running
  }

  /** Whether messages or sends are still in flight. */
  get busy(): boolean {
    return this.#deps.inFlight.size > 0
  }

  /** An event no engine may admit, refused; undefined for a valid one. */
  refused(event: InboundEvent): Promise<void> | undefined {
    return refuseInvalidEvent(event, this.#deps.state.events.error)
  }

  /** An admission, acknowledged as it is while there is room; else once there is room again (back-pressure.ts). */
  acknowledge(admitted: Promise<void>): Promise<void> {
    return this.#backPressure.acknowledge(admitted)
  }

  /** Runs a sweep soon (after a replay, a retry or an enqueue). */
  wake(): void {
    this.#sweepLoop.kick()
  }

  /**
   * Idle once nothing is in flight and `dueWork`, asked once no sweep runs, finds nothing that
   * could be worked on now. Rejects when the backend halted (a crashed test backend).
   */
  idle(timeoutMs: number, dueWork: () => Promise<boolean> | boolean): Promise<void> {
    const due = async () => {
      await this.#sweepLoop.settled()
      return dueWork()
    }
    return untilHalted(
      this.#deps.state.backend,
      this.#deps.inFlight.idle(timeoutMs, due, () => this.wake()),
      'reject',
    )
  }

  /** A bot whose backend halted (a crashed test backend) has nothing left to stop: it resolves at once. */
  stop(): Promise<void> {
    return untilHalted(this.#deps.state.backend, this.#stop(), 'resolve')
  }

  async #stop(): Promise<void> {
    const { state, inFlight, session } = this.#deps
    this.#deps.halting?.()
    await inFlight.settle(LIMITS.stopTimeoutMs)
    const error = state.events.error
    await session.stop().catch(error)
    const loops = [this.#sweepLoop, this.#beatLoop, ...(this.#deps.loops ?? [])]
    await Promise.all([...loops.map((loop) => loop.stop()), this.#retention.stop()])
    await state.keeper.stop()
    await this.#deps.stopping?.()
    await this.#beat.remove().catch(error)
    await state.backend.stop()
    releaseUnscopedBackend(state.backend, state.scopeId)
  }

  /** One sweep; once one got through, what a dead run left is back in its chats. */
  async #sweepOnce(): Promise<void> {
    await this.#deps.sweep()
    this.recovery.done()
  }
}

/**
 * The port's methods that are the frame's: an engine built on one gives its frame and how it admits
 * a valid event. An invalid event is refused before it, and past LIMITS.inFlightMax its
 * acknowledgement waits for room (back-pressure.ts).
 */
export abstract class FramedEngine implements Pick<EnginePort, 'start' | 'stop' | 'transportRunning' | 'busy' | 'admit'> {
  protected abstract readonly frame: EngineFrame

  /** Journals a valid event, then runs it; resolves once it is journaled (or known). */
  protected abstract admitValid(event: InboundEvent): Promise<void>

  start(startTransport: () => Promise<void>): Promise<void> {
    return this.frame.start(startTransport)
  }

  get transportRunning(): boolean {
    return this.frame.transportRunning
  }

  get busy(): boolean {
    return this.frame.busy
  }

  admit(event: InboundEvent): Promise<void> {
    return this.frame.refused(event) ?? this.frame.acknowledge(this.admitValid(event))
  }

  stop(): Promise<void> {
    return this.frame.stop()
  }
}
