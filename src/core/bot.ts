/**
 * The `Bot`: a provider, a store, handlers, and — with the `durability` key — the inbox and outbox
 * journals around them. Without that key nothing of the durability engine is created: the bot
 * runs handlers in memory, in one process, as it always did.
 */
import { EventEmitter } from 'node:events'
import { ChatQueue } from './chat-queue.js'
import type { Context, SendOptions } from './context.js'
import { Dispatcher, type Handler, type Registration } from './dispatcher.js'
import { DurableRuntime } from './durable-runtime.js'
import type { DurabilityOptions } from './durability/config.js'
import type { Durability } from './durability/facade.js'
import type { SendResult } from './durability/outbox.js'
import { splitContent } from './durability/outbox.js'
import { Flow } from './flow.js'
import { SendHooks, textOf, type AfterSendHook, type BeforeSendHook } from './hooks.js'
import { LIMITS } from './durability/limits.js'
import type { Matcher } from './matchers.js'
import { resolveNamespace, scopeIdOf, type NamespaceOptions } from './namespace.js'
import { optionNames, refuseUnknownOptions } from './options.js'
import type { SendOrigin } from './send-origin.js'
import type { IProvider, InboundEvent, OutboundContent } from './provider.js'
import { MemoryStore, type Store } from './store.js'

/** Where log lines go. @default console */
export interface Logger {
  warn(message: string): void
  error(message: string, error?: unknown): void
}

export interface BotConfig extends NamespaceOptions {
  provider: IProvider
  /** @default a new MemoryStore */
  store?: Store
  /** Journals every inbound message and every send (see the durability guide). */
  durability?: DurabilityOptions
  logger?: Logger
}

/** The keys BotConfig takes: a misspelt `durability` must not run a bot without its journals. */
const BOT_CONFIG_KEYS = optionNames<BotConfig>({ provider: true, store: true, durability: true, logger: true, tenantId: true, environmentId: true, botId: true, connectionId: true })

export class Bot extends EventEmitter {
  readonly provider: IProvider
  readonly store: Store
  readonly namespace
  readonly scope: string
  /** The journals' handle; undefined without the `durability` key. */
  readonly durability: Durability | undefined
  readonly #logger: Logger
  readonly #registrations: Registration[] = []
  readonly #flows = new Map<string, Flow>()
  readonly #hooks = new SendHooks()
  readonly #inbound = new ChatQueue()
  readonly #outbound = new ChatQueue()
  readonly #inFlight = new Set<Promise<unknown>>()
  readonly #dispatcher: Dispatcher
  readonly #durable: DurableRuntime | undefined
  #started = false

  constructor(config: BotConfig) {
    super()
    refuseUnknownOptions('BotConfig', config, BOT_CONFIG_KEYS)
    this.provider = config.provider
    this.store = config.store ?? new MemoryStore()
    this.namespace = resolveNamespace(config)
    this.scope = scopeIdOf(this.namespace)
    this.#logger = config.logger ?? { warn: (m) => console.warn(m), error: (m, e) => console.error(m, e ?? '') }
    this.#dispatcher = new Dispatcher({
      store: this.store,
      scope: this.scope,
      provider: this.provider,
      registrations: this.#registrations,
      flows: this.#flows,
      send: (chatId, content, options, origin) => this.#sendFrom(origin, chatId, content, options),
      enqueue: (chatId, content, options, origin) => this.#enqueueFrom(origin, chatId, content, options),
      onError: (error) => this.#reportError(error),
    })
    if (config.durability) {
      this.#durable = new DurableRuntime({
        options: config.durability,
        namespace: this.namespace,
        scopeId: this.scope,
        provider: this.provider,
        store: this.store,
        hooks: this.#hooks,
        dispatcher: this.#dispatcher,
        inboundQueue: this.#inbound,
        track: (work) => this.#track(work),
        events: {
          dead: (info) => this.emit('durability:dead', info),
          ambiguous: (info) => this.emit('durability:ambiguous', info),
          warn: (message) => this.#warn(message),
          error: (error) => this.#reportError(error),
        },
      })
      this.durability = this.#durable.durability
    }
  }

  /** Handles messages that match; first match wins. A flow starts when its matcher matches. */
  when(matcher: Matcher, handler: Handler | Flow): this {
    if (handler instanceof Flow) this.#flows.set(handler.name, handler)
    this.#registrations.push({ matcher, handler })
    return this
  }

  before(event: 'send', hook: BeforeSendHook): this {
    this.#hooks.before.push(hook)
    return this
  }

  after(event: 'send', hook: AfterSendHook): this {
    this.#hooks.after.push(hook)
    return this
  }

  async start(): Promise<void> {
    if (this.#started) return
    await this.store.start?.()
    const startTransport = () => this.provider.start((event) => this.#receive(event))
    // With providerSession 'leader' the runtime starts the transport once this replica is elected.
    if (this.#durable) await this.#durable.start(startTransport)
    else await startTransport()
    this.#started = true
  }

  /** Graceful: stops taking messages, finishes work in flight, stops the sweeper and the backend. */
  async stop(): Promise<void> {
    if (!this.#started) return
    this.#started = false
    if (!this.#durable || this.#durable.transportRunning) await this.provider.stop()
    this.#durable?.stopping()
    await this.#settle(LIMITS.stopTimeoutMs)
    await this.#durable?.stop()
    await this.store.stop?.()
  }

  /** Resolves when nothing is in flight and nothing is due now. */
  async idle(timeoutMs: number = LIMITS.idleTimeoutMs): Promise<void> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      await this.#settle(Math.max(0, deadline - Date.now()))
      const busy = this.#durable ? await this.#durable.hasDueWork() : false
      if (!busy && this.#inFlight.size === 0) return
      if (Date.now() > deadline) throw new Error(`bot.idle(): still busy after ${timeoutMs} ms`)
      this.#durable?.wake()
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
  }

  /**
   * Sends now (retrying inline up to outbox.inlineMaxMs with durability). Inside a handler the send
   * gets a key derived from the message (like ctx.reply); outside one, a random key unless you pass
   * idempotencyKey.
   */
  send(chatId: string, content: OutboundContent, options: SendOptions = {}): Promise<SendResult> {
    return this.#sendFrom(this.#durable?.currentOrigin(), chatId, content, options)
  }

  #sendFrom(origin: SendOrigin | undefined, chatId: string, content: OutboundContent, options: SendOptions = {}): Promise<SendResult> {
    const result = this.#durable
      ? this.#durable.send(chatId, content, options, origin, this.#outbound)
      : this.#outbound.run(chatId, () => this.#sendPlain(chatId, content))
    origin?.pending.push(result.catch(() => undefined))
    return this.#track(result)
  }

  /** Journals a send for the sweeper and returns at once; a second enqueue of a key is a no-op. */
  async enqueue(chatId: string, content: OutboundContent, options: SendOptions = {}): Promise<{ key: string }> {
    return this.#enqueueFrom(this.#durable?.currentOrigin(), chatId, content, options)
  }

  async #enqueueFrom(origin: SendOrigin | undefined, chatId: string, content: OutboundContent, options: SendOptions = {}): Promise<{ key: string }> {
    if (this.#durable) {
      const journaled = this.#durable.enqueue(chatId, content, options, origin)
      origin?.pending.push(journaled.catch(() => undefined))
      return journaled
    }
    const sending = this.#outbound.run(chatId, () => this.#sendPlain(chatId, content))
    void this.#track(sending).catch((error) => this.#reportError(error))
    return { key: options.idempotencyKey ?? '' }
  }

  /** Sends to many chats, `concurrency` at a time; pass idempotencyKey to name each send (`<key>:<chatId>`). */
  async broadcast(
    chatIds: readonly string[],
    content: OutboundContent,
    options: { concurrency?: number; idempotencyKey?: string } = {},
  ): Promise<({ chatId: string } & ({ result: SendResult } | { error: unknown }))[]> {
    const concurrency = Math.max(1, options.concurrency ?? LIMITS.broadcastConcurrencyDefault)
    const results: ({ chatId: string } & ({ result: SendResult } | { error: unknown }))[] = new Array(chatIds.length)
    let next = 0
    const worker = async () => {
      while (next < chatIds.length) {
        const index = next++
        const chatId = chatIds[index]!
        const key = options.idempotencyKey === undefined ? undefined : `${options.idempotencyKey}:${chatId}`
        try {
          results[index] = { chatId, result: await this.send(chatId, content, key === undefined ? {} : { idempotencyKey: key }) }
        } catch (error) {
          results[index] = { chatId, error }
        }
      }
    }
    await Promise.all(Array.from({ length: Math.min(concurrency, chatIds.length) }, worker))
    return results
  }

  /** Edits a sent message. Not journaled: edits are idempotent. */
  async edit(chatId: string, messageId: string, content: OutboundContent): Promise<void> {
    if (!this.provider.edit) throw new Error(`${this.provider.name} cannot edit messages`)
    await this.provider.edit(chatId, messageId, content)
  }

  /** Shows a typing indicator. Not journaled: it is transient. */
  async typing(chatId: string): Promise<void> {
    await this.provider.typing?.(chatId)
  }

  /** Updates a streaming draft. Not journaled: it is transient. */
  async draft(chatId: string, content: OutboundContent): Promise<void> {
    await this.provider.draft?.(chatId, content)
  }

  async #receive(event: InboundEvent): Promise<void> {
    if (this.#durable) return this.#durable.receive(event)
    void this.#track(
      this.#inbound.run(event.chatId, async () => {
        await this.store.appendLog(this.scope, { direction: 'in', chatId: event.chatId, messageId: event.id, text: event.text ?? null, at: Date.now(), ref: event.id })
        const route = await this.#dispatcher.route(event, event.id)
        const { unrecorded } = await this.#dispatcher.run(route, event, event.id)
        if (unrecorded !== undefined) this.#reportError(unrecorded)
      }),
    ).catch((error) => this.#reportError(error))
  }

  /** A send without the outbox: hooks, split, provider, after-hooks, message log. */
  async #sendPlain(chatId: string, content: OutboundContent, key: string | null = null): Promise<SendResult> {
    const rewritten = await this.#hooks.runBefore({ chatId, content, key })
    const messageIds: string[] = []
    for (const part of splitContent(rewritten, this.provider.textLimit)) {
      const { messageId } = await this.provider.send(chatId, part)
      messageIds.push(messageId)
      await this.#hooks.runAfter({ chatId, content: part, key, messageId })
      await this.store.appendLog(this.scope, { direction: 'out', chatId, messageId, text: textOf(part), at: Date.now(), ref: key })
    }
    return { key: key ?? '', messageId: messageIds[0] ?? null, messageIds, deduped: false }
  }

  #track<T>(work: Promise<T>): Promise<T> {
    this.#inFlight.add(work)
    const done = () => this.#inFlight.delete(work)
    work.then(done, done)
    return work
  }

  async #settle(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while (this.#inFlight.size > 0 && Date.now() <= deadline) {
      const timer = new Promise((resolve) => setTimeout(resolve, Math.max(1, deadline - Date.now())).unref())
      await Promise.race([Promise.allSettled([...this.#inFlight]), timer])
    }
  }

  #warn(message: string): void {
    this.#logger.warn(message)
    this.emit('warning', message)
  }

  /** 'error' goes to listeners; with none, to the logger (an EventEmitter would throw). */
  #reportError(error: unknown): void {
    if (this.listenerCount('error') > 0) this.emit('error', error)
    else this.#logger.error('botmesh: unhandled error', error)
  }
}

export type { Context, Handler }
