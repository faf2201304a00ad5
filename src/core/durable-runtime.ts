/**
 * Everything the `durability` key adds to a bot: the engine, the inbox admission, the outbox sends,
 * the sweeper and the instance heartbeat. The bot creates this only when the key is set.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { MemoryDurability } from './durability/memory/memory-durability.js'
import type { ChatQueue } from './chat-queue.js'
import type { SendOptions } from './context.js'
import type { Dispatcher } from './dispatcher.js'
import type { DurabilityBackend } from './durability/backend.js'
import { resolveDurabilityConfig, type DurabilityConfig, type DurabilityOptions, type Namespace } from './durability/config.js'
import { DurabilityEngine, type EngineEvents } from './durability/engine.js'
import { Durability } from './durability/facade.js'
import type { HeldRecord } from './durability/held-record.js'
import { admitInbound } from './durability/inbox.js'
import { ChatTurns } from './durability/chat-turns.js'
import { TransportSession } from './transport-session.js'
import { InstanceBeat } from './durability/instances.js'
import { inboxRecordId, sendKey } from './durability/keys.js'
import { LIMITS } from './durability/limits.js'
import { BackgroundLoop } from './durability/loop.js'
import { Outbox, type SendResult } from './durability/outbox.js'
import type { Transport } from './durability/outbox-attempt.js'
import { decodePayload } from './durability/payload.js'
import { Sweeper } from './durability/sweeper.js'
import { JournalUnavailableError } from './errors.js'
import { textOf, type SendHooks } from './hooks.js'
import { runInbound } from './inbound-run.js'
import { journalEvent } from './media.js'
import type { IProvider, InboundEvent, OutboundContent } from './provider.js'
import type { SendOrigin } from './send-origin.js'
import type { Store } from './store.js'
import { NO_TRACING, type MessageTracing } from './durability/tracing.js'

export interface DurableRuntimeDeps {
  options: DurabilityOptions
  namespace: Namespace
  scopeId: string
  provider: IProvider
  store: Store
  hooks: SendHooks
  dispatcher: Dispatcher
  inboundQueue: ChatQueue
  track<T>(work: Promise<T>): Promise<T>
  events: EngineEvents
}

export class DurableRuntime {
  readonly backend: DurabilityBackend
  readonly config: DurabilityConfig
  readonly engine: DurabilityEngine
  readonly durability: Durability
  readonly #outbox: Outbox
  readonly #sweeper: Sweeper
  readonly #beat: InstanceBeat
  readonly #sweepLoop: BackgroundLoop
  readonly #beatLoop: BackgroundLoop
  /** Chat turns across replicas (durability.coordination), or undefined: this process's chat queue only. */
  readonly #turns: ChatTurns | undefined
  readonly #session: TransportSession
  /** Event ids admitted lately by this process: a redelivery is recognised without a round trip. */
  readonly #recent = new Set<string>()
  /** Admissions in flight, by event id: a redelivery meanwhile is answered as the first one is. */
  readonly #admitting = new Map<string, Promise<void>>()
  /**
   * The message being handled, so that bot.send / bot.enqueue inside a handler get derived keys too
   * (rule 2). Only a durable bot creates it: async context tracking has a cost on every promise.
   */
  readonly #origin = new AsyncLocalStorage<SendOrigin>()
  readonly #tracing: MessageTracing

  constructor(private readonly deps: DurableRuntimeDeps) {
    this.backend = deps.options.backend ?? new MemoryDurability()
    this.config = resolveDurabilityConfig(deps.options, deps.namespace, this.backend)
    this.#tracing = deps.options.tracing ?? NO_TRACING
    this.engine = new DurabilityEngine(this.backend, this.config, deps.scopeId, deps.events)
    this.#turns = this.config.coordination ? new ChatTurns(this.engine, this.config.coordination.turnLeaseMs) : undefined
    this.#session = new TransportSession(this.engine, deps.provider)
    const transport = this.#transport()
    this.#outbox = new Outbox(this.engine, transport)
    this.#sweeper = new Sweeper(this.engine, this.#outbox, transport, (held) => this.#run(held, undefined))
    this.#beat = new InstanceBeat(this.engine, deps.namespace.botId, () => this.#sweeper.lastSweepAt)
    const onError = (error: unknown) => deps.events.error(error)
    this.#sweepLoop = new BackgroundLoop('sweeper', () => this.config.pollMs, () => this.#sweepOnce(), onError)
    this.#beatLoop = new BackgroundLoop('instance-heartbeat', () => LIMITS.instanceBeatMs, () => this.#beat.beat(), onError)
    this.durability = new Durability(this.engine, () => this.wake())
  }

  /** Starts the journals and the sweeper, then the transport: at once, or once elected with providerSession 'leader'. */
  async start(startTransport: () => Promise<void>): Promise<void> {
    await this.backend.start()
    await this.engine.clock.sync()
    this.#beatLoop.start()
    // The first sweep runs before the bot takes new messages: what a dead run of this instance left
    // is queued in its chats first, so a new message never overtakes an earlier one of its chat.
    await this.#sweepOnce().catch((error) => this.deps.events.error(error))
    this.#sweepLoop.start(false)
    await this.#session.start(startTransport)
  }

  /** Whether this replica's transport runs (a standby of a leader-only session has none). */
  get transportRunning(): boolean {
    return this.#session.running
  }

  /** Whether this replica holds the leader-only transport session (undefined without one). */
  isLeader(): boolean | undefined {
    return this.#session.isLeader()
  }


  async stop(): Promise<void> {
    await this.#session.stop().catch((error) => this.deps.events.error(error))
    await Promise.all([this.#sweepLoop.stop(), this.#beatLoop.stop()])
    await this.engine.keeper.stop()
    await this.#turns?.stop()
    await this.#beat.remove().catch((error) => this.deps.events.error(error))
    await this.backend.stop()
  }

  /** The bot is stopping: messages waiting for a chat turn held elsewhere stop waiting (their leases pass them on). */
  stopping(): void {
    this.#turns?.abandonWaits()
  }

  /** The inbound message whose handler is running in this async context, if any. */
  currentOrigin(): SendOrigin | undefined {
    return this.#origin.getStore()
  }

  /** Runs a sweep soon (after a replay, a retry or an enqueue). */
  wake(): void {
    this.#sweepLoop.kick()
  }

  /** Whether anything can be done now: a sweep in flight, or a due record nobody is working on. */
  async hasDueWork(): Promise<boolean> {
    await this.#sweepLoop.settled()
    if (this.#sweeper.reclaiming) return true
    const engine = this.engine
    const now = engine.now()
    const [outbox, inbox] = await Promise.all([engine.journal.due('outbox', now, 50), engine.journal.due('inbox', now, 50)])
    const actionable =
      outbox.some(({ record }) => !this.#outbox.isInFlight(record.key) && !engine.keeper.holds('outbox', record.key) && (record.state !== 'sending' || engine.leaseIsOver(record.lease, 'outbox', record.key))) ||
      inbox.some(({ record }) => !engine.keeper.holds('inbox', record.id) && (record.state !== 'processing' || engine.leaseIsOver(record.lease, 'inbox', record.id)))
    return actionable
  }

  /** Journals an inbound event, then dispatches it; resolves once it is journaled. Fail-closed unless failOpen. */
  async receive(event: InboundEvent): Promise<void> {
    const id = inboxRecordId(this.deps.provider.name, event.chatId, event.id)
    const admitting = this.#admitting.get(id)
    if (admitting) {
      // A redelivery while the first delivery is still being journaled: acknowledged only once that one
      // is, and refused if it fails (fail-closed), so the channel delivers it again instead of losing it.
      await admitting
      this.engine.metrics.increment('inboundDuplicates')
      return
    }
    if (this.#recent.has(id)) {
      this.engine.metrics.increment('inboundDuplicates')
      return
    }
    const message = { inboundId: id, chatId: event.chatId, provider: this.deps.provider.name }
    const admission = this.#tracing.admit(message, () => this.#admit(id, event))
    this.#admitting.set(id, admission)
    try {
      await admission
    } finally {
      this.#admitting.delete(id)
    }
  }

  async #admit(id: string, event: InboundEvent): Promise<void> {
    this.#remember(id)
    let admitted: Awaited<ReturnType<typeof admitInbound>>
    try {
      const journaled = journalEvent(event, this.deps.provider, { mediaRefs: this.config.inbox.mediaRefs, warn: this.deps.events.warn })
      // With coordination the message takes its place in its chat's turn queue first: that is its arrival.
      const arrivedAt = this.#turns ? await this.#turns.join(event.chatId, id) : undefined
      admitted = await admitInbound(this.engine, event, journaled, this.deps.provider.name, arrivedAt)
    } catch (cause) {
      // Forget it, so the channel's redelivery is processed.
      this.#recent.delete(id)
      const error = new JournalUnavailableError(`the inbox could not journal event "${id}": ${cause instanceof Error ? cause.message : String(cause)}`, cause)
      this.deps.events.error(error)
      if (!this.config.failOpen) throw error
      void this.deps.track(this.deps.inboundQueue.run(event.chatId, () => this.#dispatchUnjournaled(event))).catch((e) => this.deps.events.error(e))
      return
    }
    if ('existing' in admitted) {
      this.engine.metrics.increment('inboundDuplicates')
      return
    }
    this.#run(admitted.held, event)
  }

  send(chatId: string, content: OutboundContent, options: SendOptions, origin: SendOrigin | undefined, queue: ChatQueue): Promise<SendResult> {
    const outboxSend = this.#outboxSend(chatId, content, options, origin)
    // Sends to a chat keep their order while one of them is retried inline.
    const traced = { key: outboxSend.key.key, chatId, inboundId: origin?.inboundId ?? null }
    return this.#recordingFailure(origin, () => queue.run(chatId, () => this.#tracing.send(traced, () => this.#outbox.send(outboxSend))))
  }

  async enqueue(chatId: string, content: OutboundContent, options: SendOptions, origin: SendOrigin | undefined): Promise<{ key: string }> {
    const result = await this.#recordingFailure(origin, () => this.#outbox.enqueue(this.#outboxSend(chatId, content, options, origin)))
    this.wake()
    return result
  }

  /**
   * Runs a send of a message's handler; a journal failure is kept on the origin, so the message is
   * released instead of marked done. Once one send of a message failed so, its later sends are
   * refused too: the replay makes them all, in the handler's order.
   */
  async #recordingFailure<T>(origin: SendOrigin | undefined, send: () => Promise<T>): Promise<T> {
    if (origin?.journalFailure) {
      throw new JournalUnavailableError(`an earlier send of inbound "${origin.inboundId}" could not be journaled; this one waits for its replay`, origin.journalFailure)
    }
    try {
      return await send()
    } catch (error) {
      if (origin && error instanceof JournalUnavailableError) origin.journalFailure ??= error
      throw error
    }
  }

  #outboxSend(chatId: string, content: OutboundContent, options: SendOptions, origin: SendOrigin | undefined) {
    const ordinal = origin ? ++origin.sends : 0
    const key = sendKey(options.idempotencyKey, origin ? { inboundId: origin.inboundId, ordinal } : undefined)
    return {
      chatId,
      content,
      key,
      replay: origin?.replay ?? false,
      beforeSend: (c: OutboundContent) => this.deps.hooks.runBefore({ chatId, content: c, key: key.key }),
      bypass: async (c: OutboundContent, reason: string): Promise<SendResult> => {
        this.engine.metrics.increment('outboxBypassed')
        this.deps.events.warn(`durability: the send "${key.key}" bypasses the outbox (${reason}); it is not journaled`)
        const { messageId } = await this.deps.provider.send(chatId, c)
        await this.#afterSend(chatId, c, null, messageId)
        return { key: key.key, messageId, messageIds: [messageId], deduped: false }
      },
    }
  }

  /** Runs an inbound record this process holds: route (may fail: retried), handlers, then done. */
  #run(held: HeldRecord<'inbox'>, live: InboundEvent | undefined): void {
    // Held from now on, not from when its turn in the chat comes: a message queued behind a slow
    // handler keeps its lease through the heartbeat, and the sweeper never claims it from us.
    this.engine.keeper.add(held)
    const deps = { engine: this.engine, dispatcher: this.deps.dispatcher, provider: this.deps.provider, store: this.deps.store, scopeId: this.deps.scopeId, origin: this.#origin }
    const message = { inboundId: held.id, chatId: held.record.chatId, provider: this.deps.provider.name, replay: !live }
    const run = () => this.deps.inboundQueue.run(held.record.chatId, () => this.#tracing.handle(message, () => runInbound(deps, held, live)))
    const work = (this.#turns ? this.#inTurn(this.#turns, held, run) : run()).finally(() => this.engine.keeper.remove(held))
    void this.deps.track(work).catch((error) => this.deps.events.error(error))
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

  async #dispatchUnjournaled(event: InboundEvent): Promise<void> {
    const route = await this.deps.dispatcher.route(event, event.id)
    const { unrecorded } = await this.deps.dispatcher.run(route, event, event.id)
    if (unrecorded !== undefined) this.deps.events.error(unrecorded)
  }

  async #sweepOnce(): Promise<void> {
    await this.#sweeper.sweep()
  }

  #transport(): Transport {
    const provider = this.deps.provider
    return {
      textLimit: provider.textLimit,
      send: (chatId, content) => provider.send(chatId, content),
      isStandby: () => this.#session.isStandby(),
      afterSend: (record, messageId) => this.#afterSend(record.chatId, decodePayload(record.payload), record.key, messageId),
    }
  }

  async #afterSend(chatId: string, content: OutboundContent, key: string | null, messageId: string): Promise<void> {
    await this.deps.hooks.runAfter({ chatId, content, key, messageId })
    await this.deps.store.appendLog(this.deps.scopeId, { direction: 'out', chatId, messageId, text: textOf(content), at: Date.now(), ref: key })
  }

  #remember(id: string): void {
    this.#recent.add(id)
    if (this.#recent.size > LIMITS.dedupeCacheMax) this.#recent.delete(this.#recent.values().next().value!)
  }
}
