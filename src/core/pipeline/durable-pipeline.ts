/**
 * The pipeline of a bot with the `durability` key: the same route-run-send steps as the plain one,
 * inside the journals. An inbound event is admitted into the inbox before any handler runs
 * (admission.ts), run under its lease in its chat's turn (inbound-run.ts), and its replies go
 * through the outbox (durable-sender.ts). The sweeper delivers due sends and replays unfinished
 * messages; the instance heartbeat says this replica is alive.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import type { DurabilityBackend } from '../durability/backend.js'
import { ChatTurns } from '../durability/chat-turns.js'
import { resolveDurabilityConfig, type DurabilityConfig, type DurabilityOptions, type Namespace } from '../durability/config.js'
import { DurabilityEngine, type EngineEvents } from '../durability/engine.js'
import { reportDelivery } from '../durability/reconcile.js'
import { refuseInvalidEvent } from '../durability/event-check.js'
import { Durability } from '../durability/facade.js'
import type { HeldRecord } from '../durability/held-record.js'
import { InstanceBeat } from '../durability/instances.js'
import { LIMITS } from '../durability/limits.js'
import { BackgroundLoop } from '../durability/loop.js'
import { MemoryDurability } from '../durability/memory/memory-durability.js'
import { Outbox } from '../durability/outbox.js'
import type { Transport } from '../durability/outbox-attempt.js'
import { decodePayload } from '../durability/payload.js'
import { Retention } from '../durability/retention.js'
import { Sweeper } from '../durability/sweeper.js'
import { NO_TRACING, type MessageTracing } from '../durability/tracing.js'
import { claimUnscopedBackend, releaseUnscopedBackend } from '../durability/unscoped-sharing.js'
import type { DeliveryReport, InboundEvent } from '../provider.js'
import { TransportSession } from '../transport-session.js'
import { Admission } from './admission.js'
import { ChatQueue } from './chat-queue.js'
import { Dispatcher } from './dispatcher.js'
import { DurableSender } from './durable-sender.js'
import { InFlight } from './in-flight.js'
import { runInbound, type InboundRunDeps } from './inbound-run.js'
import { afterDelivery, type BotParts, type MessagePipeline } from './pipeline.js'
import type { SendOrigin } from './send-origin.js'

export interface DurablePipelineDeps {
  parts: BotParts
  options: DurabilityOptions
  namespace: Namespace
  /** The bot's `durability:dead`, `durability:ambiguous` and `durability:reconciled` events. */
  events: Pick<EngineEvents, 'dead' | 'ambiguous' | 'reconciled'>
}

export class DurablePipeline implements MessagePipeline {
  readonly backend: DurabilityBackend
  readonly config: DurabilityConfig
  readonly engine: DurabilityEngine
  /** `bot.durability`. */
  readonly durability: Durability
  readonly sender: DurableSender
  readonly #parts: BotParts
  readonly #inFlight = new InFlight()
  /** Messages of one chat run one after another in this process. */
  readonly #chats = new ChatQueue()
  readonly #dispatcher: Dispatcher
  readonly #admission: Admission
  readonly #sweeper: Sweeper
  readonly #beat: InstanceBeat
  readonly #sweepLoop: BackgroundLoop
  readonly #beatLoop: BackgroundLoop
  readonly #retention: Retention
  /** Chat turns across replicas (durability.coordination), or undefined: this process's chat queue only. */
  readonly #turns: ChatTurns | undefined
  readonly #session: TransportSession
  /**
   * The message being handled, so that bot.send / bot.enqueue inside a handler get derived keys too.
   * Only a durable bot creates it: async context tracking has a cost on every promise.
   */
  readonly #origin = new AsyncLocalStorage<SendOrigin>()
  readonly #tracing: MessageTracing
  /** What every run of an inbound record needs: made once, not per message. */
  readonly #runDeps: InboundRunDeps

  constructor({ parts, options, namespace, events }: DurablePipelineDeps) {
    this.#parts = parts
    this.backend = options.backend ?? new MemoryDurability()
    this.config = resolveDurabilityConfig(options, namespace, this.backend)
    this.#tracing = options.tracing ?? NO_TRACING
    this.engine = new DurabilityEngine(this.backend, this.config, parts.scope, { ...events, warn: parts.warn, error: parts.error })
    this.#turns = this.config.coordination ? new ChatTurns(this.engine, this.config.coordination.turnLeaseMs) : undefined
    this.#session = new TransportSession(this.engine, parts.provider)
    const transport = this.#transport()
    this.delivered = (report) => reportDelivery(this.engine, transport, report)
    const outbox = new Outbox(this.engine, transport)
    this.sender = new DurableSender({
      parts,
      engine: this.engine,
      outbox,
      inFlight: this.#inFlight,
      tracing: this.#tracing,
      wake: () => this.#wake(),
    })
    this.#dispatcher = new Dispatcher(parts, this.sender)
    const runUnjournaled = (event: InboundEvent) =>
      void this.#inFlight.track(this.#chats.run(event.chatId, () => this.#dispatcher.handleUnjournaled(event))).catch(parts.error)
    this.#admission = new Admission({ parts, engine: this.engine, tracing: this.#tracing, turns: this.#turns, runUnjournaled })
    this.#sweeper = new Sweeper(this.engine, outbox, transport)
    this.#beat = new InstanceBeat(this.engine, namespace.botId, () => this.#sweeper.lastSweepAt)
    this.#sweepLoop = new BackgroundLoop(
      'sweeper',
      () => this.config.pollMs,
      () => this.#sweepOnce(),
      parts.error,
    )
    this.#beatLoop = new BackgroundLoop(
      'instance-heartbeat',
      () => LIMITS.instanceBeatMs,
      () => this.#beat.beat(),
      parts.error,
    )
    this.#retention = new Retention(this.engine, parts.error)
    this.durability = new Durability(this.engine, () => this.#wake())
    this.#runDeps = { engine: this.engine, dispatcher: this.#dispatcher, provider: parts.provider, origin: this.#origin }
  }

  /**
   * Starts the journals and the sweeper, then the transport: at once, or once elected with
   * providerSession 'leader'. Resolves too when the backend halts meanwhile (a crashed test backend:
   * its first sweep may replay a message that crashes the process), and idle() then says so.
   */
  start(startTransport: () => Promise<void>): Promise<void> {
    return untilHalted(this.backend, this.#start(startTransport), 'resolve')
  }

  async #start(startTransport: () => Promise<void>): Promise<void> {
    claimUnscopedBackend(this.backend, this.engine.scopeId)
    await this.backend.start().catch((error: unknown) => {
      releaseUnscopedBackend(this.backend, this.engine.scopeId)
      throw error
    })
    await this.engine.clock.sync()
    this.#beatLoop.start()
    // Retention's first pass comes before the first sweep: a restarted bot takes up its backlog
    // before anything it runs (a run that crashes the process would otherwise stop it for good).
    await this.#retention.start()
    // The first sweep runs before the bot takes new messages: what a dead run of this instance left
    // is queued in its chats first, so a new message never overtakes an earlier one of its chat.
    await this.#sweepOnce().catch(this.#parts.error)
    this.#sweepLoop.start(false)
    await this.#session.start(startTransport)
  }

  get transportRunning(): boolean {
    return this.#session.running
  }

  /** A delivery report from the provider's status callbacks (see reconcile.ts). */
  readonly delivered: (report: DeliveryReport) => Promise<void>

  receive(event: InboundEvent): Promise<void> {
    return refuseInvalidEvent(event, this.#parts.error) ?? this.#admission.admit(event, (held) => this.#run(held, event))
  }

  currentOrigin(): SendOrigin | undefined {
    return this.#origin.getStore()
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
    const error = this.#parts.error
    await this.#session.stop().catch(error)
    await Promise.all([this.#sweepLoop.stop(), this.#beatLoop.stop(), this.#retention.stop()])
    await this.engine.keeper.stop()
    await this.#turns?.stop()
    await this.#beat.remove().catch(error)
    await this.backend.stop()
    releaseUnscopedBackend(this.backend, this.engine.scopeId)
    // Async context tracking costs every promise of the process, bot or not, while any store is on.
    // Off once no handler can still call bot.send (a run that outlived the stop timeout keeps it).
    if (this.#inFlight.size === 0) this.#origin.disable()
  }

  /** One sweep; the records it claims run here, as replays. */
  #sweepOnce(): Promise<void> {
    return this.#sweeper.sweep((held) => this.#run(held, undefined))
  }

  /** Runs a sweep soon (after a replay, a retry or an enqueue). */
  #wake(): void {
    this.#sweepLoop.kick()
  }

  /** Runs an inbound record this process holds (`live`: the event just admitted; none on a replay). */
  #run(held: HeldRecord<'inbox'>, live: InboundEvent | undefined): void {
    // Held from now on, not from when its turn in the chat comes: a message queued behind a slow
    // handler keeps its lease through the heartbeat, and the sweeper never claims it from us.
    this.engine.keeper.add(held)
    const deps = this.#runDeps
    const tracing = this.#tracing
    // Without a tracer no traced message and no wrapping closure are made: this runs once per message.
    const handle =
      tracing === NO_TRACING
        ? () => runInbound(deps, held, live)
        : () => {
            const message = { inboundId: held.id, chatId: held.record.chatId, provider: this.#parts.provider.name, replay: !live }
            return tracing.handle(message, () => runInbound(deps, held, live))
          }
    const run = () => this.#chats.run(held.record.chatId, handle)
    // One then() releases the record, reports a failure and ends the in-flight count (not finally(),
    // catch() and a then() of the in-flight set's own: five promises).
    const release = () => {
      this.engine.keeper.remove(held)
      this.#inFlight.forget(work)
    }
    const work: Promise<void> = (this.#turns ? this.#inTurn(this.#turns, held, run) : run()).then(release, (error: unknown) => {
      release()
      this.#parts.error(error)
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

  /** The outbox's way to the provider. */
  #transport(): Transport {
    const provider = this.#parts.provider
    return {
      textLimit: provider.textLimit,
      send: (chatId, content, outboxKey) =>
        provider.echoesOutboxKey ? provider.send(chatId, content, { outboxKey }) : provider.send(chatId, content),
      echoesOutboxKey: provider.echoesOutboxKey === true,
      isStandby: () => this.#session.isStandby(),
      afterSend: (record, messageId) => afterDelivery(this.#parts, record.chatId, decodePayload(record.payload), record.key, messageId),
    }
  }
}

/**
 * `work`, or, once the backend halted for good (`whenHalted`: a crashed test backend whose calls never
 * settle), its reason as a rejection, or a resolution with `'resolve'`: a crashed bot's start() and
 * stop() end and its idle() fails with the crash, where they would wait on the dead backend forever.
 */
function untilHalted(backend: DurabilityBackend, work: Promise<void>, onHalt: 'reject' | 'resolve'): Promise<void> {
  const halted = backend.whenHalted?.()
  if (!halted) return work
  return Promise.race([
    work,
    halted.then((reason) => {
      if (onHalt === 'reject') throw reason
    }),
  ])
}
