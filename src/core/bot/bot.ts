/**
 * The `Bot`: a provider, a store, handlers, and — with the `durability` key — the inbox and outbox
 * journals around them. Without that key nothing of the durability engine is created: the bot
 * runs handlers in memory, in one process, as it always did.
 */
import { EventEmitter } from 'node:events'
import type { Context, EnqueueResult, Message, SendOptions } from './context.js'
import type { DurabilityOptions } from '../durability/config.js'
import type { Durability } from '../durability/operations/facade.js'
import { encryptedParts } from '../encryption/bot-encryption.js'
import { LIMITS } from '../durability/limits.js'
import type { SendResult } from '../durability/outbox/outbox.js'
import { Flow } from './flow.js'
import { SendHooks, type AfterSendHook, type BeforeSendHook } from './hooks.js'
import type { Matcher, NarrowingMatcher } from './matchers.js'
import { resolveNamespace, scopeIdOf, type NamespaceOptions } from './namespace.js'
import { optionNames, refuseUnknownOptions } from '../options/options.js'
import { DurablePipeline } from '../pipeline/durable-pipeline.js'
import type { BotParts, Handler, MessagePipeline, Registration } from '../pipeline/pipeline.js'
import { PlainPipeline } from '../pipeline/plain-pipeline.js'
import type { IProvider, InboundEvent, InboundSink, OutboundContent } from '../provider/provider.js'
import { ProviderError } from '../provider/provider-errors.js'
import { ERROR_CODES } from '../errors/errors.js'
import { MemoryStore, type Store } from '../store/store.js'

/** Where log lines go. @default console */
export interface Logger {
  /** Something worth a look that did not stop the bot. */
  warn(message: string): void
  /** A failure the bot could not hand to anyone else (a handler's error without an `error` listener, a background loop's). */
  error(message: string, error?: unknown): void
}

/** What `new Bot(config)` takes; an unknown key is refused with `ConfigError`. */
export interface BotConfig extends NamespaceOptions {
  /** The channel: it hands inbound events to the bot and sends its messages. */
  provider: IProvider
  /** @default a new MemoryStore */
  store?: Store
  /** Journals every inbound message and every send (see the durability guide). */
  durability?: DurabilityOptions
  /** Where warnings and errors nobody else can get are written. @default console */
  logger?: Logger
}

/** One chat's outcome of `bot.broadcast`: the send's result, or the error it failed with. */
export type BroadcastOutcome = {
  /** The chat the send went to. */
  chatId: string
} & (
  | {
      /** What the send resolved to. */
      result: SendResult
    }
  | {
      /** What the send rejected with. */
      error: unknown
    }
)

/** The keys BotConfig takes: a misspelt `durability` must not run a bot without its journals. */
const BOT_CONFIG_KEYS = optionNames<BotConfig>({
  provider: true,
  store: true,
  durability: true,
  logger: true,
  tenantId: true,
  environmentId: true,
  botId: true,
  connectionId: true,
})

/**
 * A chat bot: handlers for inbound messages (`when`), sends (`send`, `enqueue`, `broadcast`), hooks
 * around sends, and with `durability` the inbox and outbox journals that make each message run and
 * each send go out once across crashes. Emits `error`, `durability:dead`, `durability:ambiguous` and
 * `durability:reconciled`.
 */
export class Bot extends EventEmitter {
  /** The channel it runs on. */
  readonly provider: IProvider
  /** Per-chat user data, flow checkpoints and the message log. */
  readonly store: Store
  /** Its namespace, every part resolved to its default where not given. */
  readonly namespace
  /** The scope id derived from the namespace: the bot's own view of a shared backend. */
  readonly scope: string
  /** The journals' handle; undefined without the `durability` key. */
  readonly durability: Durability | undefined
  readonly #logger: Logger
  readonly #registrations: Registration[] = []
  readonly #flows = new Map<string, Flow>()
  readonly #hooks = new SendHooks()
  /** The path every message takes: plain, or inside the journals with the `durability` key. */
  readonly #pipeline: MessagePipeline
  #started = false

  constructor(config: BotConfig) {
    super()
    refuseUnknownOptions('BotConfig', config, BOT_CONFIG_KEYS)
    this.provider = config.provider
    const { store, durability } = encryptedParts(config.store ?? new MemoryStore(), config.durability, (error) => this.#reportError(error))
    this.store = store
    this.namespace = resolveNamespace(config)
    this.scope = scopeIdOf(this.namespace)
    this.#logger = config.logger ?? { warn: (m) => console.warn(m), error: (m, e) => console.error(m, e ?? '') }
    const parts: BotParts = {
      provider: this.provider,
      store: this.store,
      scope: this.scope,
      registrations: this.#registrations,
      flows: this.#flows,
      hooks: this.#hooks,
      error: (error) => this.#reportError(error),
      warn: (message) => this.#warn(message),
    }
    if (durability) {
      const events = {
        dead: (info: unknown) => this.emit('durability:dead', info),
        ambiguous: (info: unknown) => this.emit('durability:ambiguous', info),
        reconciled: (info: unknown) => this.emit('durability:reconciled', info),
      }
      const durable = new DurablePipeline({ parts, options: durability, namespace: this.namespace, events })
      this.durability = durable.durability
      this.#pipeline = durable
    } else {
      this.#pipeline = new PlainPipeline(parts)
    }
  }

  /**
   * Handles messages that match; first match wins. A flow starts when its matcher matches. A
   * narrowing matcher (`TEXT`, `IMAGE`, `text(…)`) narrows `ctx.message`: after `TEXT`, its text is a string.
   */
  when<Checked>(matcher: NarrowingMatcher<Checked>, handler: Handler<Message & Checked> | Flow): this
  when(matcher: Matcher, handler: Handler | Flow): this
  when(matcher: Matcher, handler: Handler | Flow): this {
    if (handler instanceof Flow) this.#flows.set(handler.name, handler)
    this.#registrations.push({ matcher, handler })
    return this
  }

  /** Runs `hook` before each send is journaled: it may rewrite the content; it runs once per send, never again on a retry. */
  beforeSend(hook: BeforeSendHook): this {
    this.#hooks.before.push(hook)
    return this
  }

  /** Runs `hook` after each send the provider accepted. */
  afterSend(hook: AfterSendHook): this {
    this.#hooks.after.push(hook)
    return this
  }

  /** The contract's event form of {@link Bot.beforeSend}: `'send'` is its only event. */
  before(event: 'send', hook: BeforeSendHook): this {
    return this.beforeSend(hook)
  }

  /** The contract's event form of {@link Bot.afterSend}: `'send'` is its only event. */
  after(event: 'send', hook: AfterSendHook): this {
    return this.afterSend(hook)
  }

  /** Opens the store and the durability backend, replays what an earlier run left in flight, and starts the provider. Idempotent. */
  async start(): Promise<void> {
    if (this.#started) return
    await this.store.start?.()
    // With providerSession 'leader' the durable pipeline starts the transport once this replica is elected.
    const pipeline = this.#pipeline
    const sink: InboundSink = Object.assign(
      (event: InboundEvent) => pipeline.receive(event),
      pipeline.delivered ? { delivered: pipeline.delivered } : {},
    )
    await pipeline.start(() => this.provider.start(sink))
    this.#started = true
  }

  /** Graceful: stops taking messages, finishes work in flight, stops the sweeper and the backend. */
  async stop(): Promise<void> {
    if (!this.#started) return
    this.#started = false
    if (this.#pipeline.transportRunning) await this.provider.stop()
    await this.#pipeline.stop()
    await this.store.stop?.()
  }

  /** Resolves when nothing is in flight and nothing is due now. */
  idle(timeoutMs: number = LIMITS.idleTimeoutMs): Promise<void> {
    return this.#pipeline.idle(timeoutMs)
  }

  /**
   * Sends now (retrying inline up to outbox.inlineMaxMs with durability). Inside a handler the send
   * gets a key derived from the message (like ctx.reply); outside one, a random key unless you pass
   * idempotencyKey.
   */
  send(chatId: string, content: OutboundContent, options: SendOptions = {}): Promise<SendResult> {
    return this.#pipeline.sender.send(chatId, content, options, this.#pipeline.currentOrigin())
  }

  /** Journals a send for the sweeper and returns at once; a second enqueue of a key is a no-op. */
  enqueue(chatId: string, content: OutboundContent, options: SendOptions = {}): Promise<EnqueueResult> {
    return this.#pipeline.sender.enqueue(chatId, content, options, this.#pipeline.currentOrigin())
  }

  /** Sends to many chats, `concurrency` at a time; pass idempotencyKey to name each send (`<key>:<chatId>`). */
  async broadcast(
    chatIds: readonly string[],
    content: OutboundContent,
    options: { concurrency?: number; idempotencyKey?: string } = {},
  ): Promise<BroadcastOutcome[]> {
    const concurrency = Math.max(1, options.concurrency ?? LIMITS.broadcastConcurrencyDefault)
    const results: BroadcastOutcome[] = new Array(chatIds.length)
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

  /**
   * Edits a sent message. Not journaled: edits are idempotent.
   * @throws {ProviderError} code `EDIT_UNSUPPORTED` (final) when the provider cannot edit messages.
   */
  async edit(chatId: string, messageId: string, content: OutboundContent): Promise<void> {
    if (!this.provider.edit)
      throw new ProviderError(ERROR_CODES.EDIT_UNSUPPORTED, `${this.provider.name} cannot edit messages`, { retryable: false })
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
