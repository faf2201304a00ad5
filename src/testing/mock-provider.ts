/**
 * `MockProvider`: a real in-memory provider for tests and demos. It records what it accepted in
 * `sent` (its own log, apart from any journal: the crash matrix's oracle), takes inbound events
 * with `receive`, and plays scripted faults: failures, rate limits, latency, accept-then-throw.
 */
import { BotmeshError, ERROR_CODES } from '../core/errors/errors.js'
import { ProviderError, RateLimitedError, UnsupportedContentError } from '../core/provider/provider-errors.js'
import type {
  InboundEvent,
  InboundSink,
  IProvider,
  MediaRef,
  OutboundContent,
  ProviderSendResult,
  StoredMediaRef,
} from '../core/provider/provider.js'

/** One accepted send. */
export interface MockSent {
  /** The chat it went to. */
  chatId: string
  /** What was sent. */
  content: OutboundContent
  /** The id the mock gave it. */
  messageId: string
  /** When it was accepted, in ms since the epoch. */
  at: number
}

/** A scripted fault: applies to the next sends that match. */
interface Fault {
  remaining: number
  match: (chatId: string, content: OutboundContent) => boolean
  act: 'throw' | 'accept-then-throw' | 'delay'
  error: () => unknown
  delayMs?: number
}

/** Options of a `MockProvider`. */
export interface MockProviderOptions {
  /** @default 'mock' */
  name?: string
  /** The longest text in one message. @default 4096 */
  textLimit?: number
  /** Delay of every send. @default 0 */
  latencyMs?: number
  /** `leader`: one replica at a time holds the channel (as a WhatsApp Web session). @default 'any' */
  session?: 'any' | 'leader'
}

export class MockProvider implements IProvider {
  readonly name: string
  readonly textLimit: number
  readonly session: 'any' | 'leader'
  /** Every send the channel accepted, in order. */
  readonly sent: MockSent[] = []
  /** Every edit accepted, in order. */
  readonly edits: {
    /** The chat of the edited message. */
    chatId: string
    /** The id of the edited message. */
    messageId: string
    /** Its new content. */
    content: OutboundContent
  }[] = []
  /** Chats shown a typing indicator, in order. */
  readonly typings: string[] = []
  /** Every draft shown, in order. */
  readonly drafts: {
    /** The chat shown the draft. */
    chatId: string
    /** The draft's content. */
    content: OutboundContent
  }[] = []
  /** Bytes served by download(), by media token. */
  readonly media = new Map<string, Buffer>()
  /** Delay of every send, in ms. */
  latencyMs: number
  /** Whether this replica holds the session (`session: 'leader'`); set it false to act as a follower. */
  leader = true
  #sink: InboundSink | undefined
  #faults: Fault[] = []
  #ids = 0

  constructor(options: MockProviderOptions = {}) {
    this.name = options.name ?? 'mock'
    this.textLimit = options.textLimit ?? 4096
    this.latencyMs = options.latencyMs ?? 0
    this.session = options.session ?? 'any'
  }

  async start(sink: InboundSink): Promise<void> {
    this.#sink = sink
  }

  async stop(): Promise<void> {
    this.#sink = undefined
  }

  /** Delivers an inbound event; resolves once the bot journaled it (rejects if it could not). */
  async receive(event: InboundEvent): Promise<void> {
    if (!this.#sink) throw new BotmeshError(ERROR_CODES.NOT_STARTED, 'MockProvider.receive: the bot has not started this provider')
    await this.#sink(event)
  }

  /** The next `count` sends (matching `match`) fail with `error` (a transient ProviderError by default). */
  failNext(
    count: number,
    error: unknown = new ProviderError(ERROR_CODES.TRANSIENT, 'the channel failed (scripted)'),
    match?: (chatId: string, content: OutboundContent) => boolean,
  ): this {
    this.#faults.push({ remaining: count, match: match ?? (() => true), act: 'throw', error: () => error })
    return this
  }

  /** The next `count` sends are refused with a RateLimitedError asking to wait `retryAfterMs`. */
  rateLimitNext(count: number, retryAfterMs: number, match?: (chatId: string, content: OutboundContent) => boolean): this {
    this.#faults.push({ remaining: count, match: match ?? (() => true), act: 'throw', error: () => new RateLimitedError(retryAfterMs) })
    return this
  }

  /** The next `count` sends are accepted by the channel, then the call fails anyway (a lost response). */
  acceptThenThrowNext(count: number, match?: (chatId: string, content: OutboundContent) => boolean): this {
    this.#faults.push({
      remaining: count,
      match: match ?? (() => true),
      act: 'accept-then-throw',
      error: () => new ProviderError(ERROR_CODES.RESPONSE_LOST, 'accepted, but the response was lost (scripted)'),
    })
    return this
  }

  /** The next `count` sends (matching `match`) take `delayMs` longer: a slow upload. */
  slowNext(count: number, delayMs: number, match?: (chatId: string, content: OutboundContent) => boolean): this {
    this.#faults.push({ remaining: count, match: match ?? (() => true), act: 'delay', error: () => undefined, delayMs })
    return this
  }

  async send(chatId: string, content: OutboundContent): Promise<ProviderSendResult> {
    if (this.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.latencyMs))
    const slow = this.#faults.find((f) => f.act === 'delay' && f.remaining > 0 && f.match(chatId, content))
    if (slow) {
      slow.remaining--
      await new Promise((resolve) => setTimeout(resolve, slow.delayMs))
    }
    const fault = this.#faults.find((f) => f.act !== 'delay' && f.remaining > 0 && f.match(chatId, content))
    if (fault) {
      fault.remaining--
      if (fault.act === 'throw') throw fault.error()
    }
    const messageId = `${this.name}-${++this.#ids}`
    this.sent.push({ chatId, content: copyOf(content), messageId, at: Date.now() })
    if (fault?.act === 'accept-then-throw') throw fault.error()
    return { messageId }
  }

  async edit(chatId: string, messageId: string, content: OutboundContent): Promise<void> {
    this.edits.push({ chatId, messageId, content })
  }

  async typing(chatId: string): Promise<void> {
    this.typings.push(chatId)
  }

  async draft(chatId: string, content: OutboundContent): Promise<void> {
    this.drafts.push({ chatId, content })
  }

  isLeader(): boolean {
    return this.leader
  }

  /** Texts sent to a chat (or to every chat), in order. */
  texts(chatId?: string): string[] {
    return this.sent
      .filter((s) => chatId === undefined || s.chatId === chatId)
      .map((s) => (typeof s.content === 'string' ? s.content : (s.content.text ?? s.content.caption ?? '')))
  }

  async download(media: MediaRef): Promise<Buffer> {
    const id = tokenId(media.token)
    const bytes = id === undefined ? undefined : this.media.get(id)
    if (!bytes) throw new ProviderError(ERROR_CODES.MEDIA_NOT_FOUND, `no media "${String(id)}"`, { retryable: false })
    return bytes
  }

  /** Journals `{ id }` of a media token; a view-once token is not made durable. */
  serializeMediaRef(media: MediaRef): StoredMediaRef | undefined {
    const token = media.token as { viewOnce?: boolean } | undefined
    if (token && typeof token === 'object' && token.viewOnce) return undefined
    const id = tokenId(media.token)
    return id === undefined ? undefined : { v: 1, data: { id } }
  }

  rehydrateMediaRef(stored: StoredMediaRef, media: MediaRef): MediaRef {
    const data = stored.data as { id?: unknown } | null
    if (stored.v !== 1 || !data || typeof data.id !== 'string')
      throw new ProviderError(ERROR_CODES.MEDIA_REF_INVALID, `not a mock media reference: ${JSON.stringify(stored)}`, { retryable: false })
    return { ...media, token: { id: data.id, live: false } }
  }
}

/** A media token is a string id, or (like Baileys' live message) an object carrying an id. */
function tokenId(token: unknown): string | undefined {
  if (typeof token === 'string') return token
  if (token && typeof token === 'object' && typeof (token as { id?: unknown }).id === 'string') return (token as { id: string }).id
  return undefined
}

/**
 * The copy of a send that `sent` keeps (so a caller changing its object later changes nothing here).
 * Content that cannot be copied (a stream, a function) is refused as a channel refuses what it cannot take.
 */
function copyOf(content: OutboundContent): OutboundContent {
  try {
    return structuredClone(content)
  } catch (error) {
    throw new UnsupportedContentError(
      `MockProvider keeps a copy of every send, and this content cannot be copied: ${(error as Error).message}`,
    )
  }
}
