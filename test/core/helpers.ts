/**
 * Shared pieces of the engine tests: fast durability options, a harness that starts bots and stops
 * them after each test, a tapping backend wrapper (records every journal call, lets a test delay or
 * fail one), and a way to hold a provider's sends at a gate.
 */
import { afterEach } from 'vitest'
import { MemoryDurability } from '../../src/core/index.js'
import { Bot, type BotConfig } from '../../src/core/bot/bot.js'
import type {
  DurabilityBackend,
  Journal,
  JournalListQuery,
  JournalWrite,
  JournalWriteResult,
} from '../../src/core/durability/journal/backend.js'
import type { DurabilityOptions } from '../../src/core/durability/config.js'
import type { WriteLabel, WriteName } from '../../src/core/durability/journal/crash-points.js'
import { nameOfOp } from '../../test-utils/write-label.js'
import type { InboxRecord, OutboxRecord, RecordKind } from '../../src/core/durability/journal/records.js'
import type { OutboundContent, ProviderSendResult } from '../../src/core/provider/provider.js'
import { MockProvider } from '../../src/testing/mock-provider.js'
import { deferred, waitFor } from '../../test-utils/wait.js'

export { recordId } from '../../test-utils/record-id.js'

/** Durations small enough that a test runs in milliseconds (no jitter, so journaled times are exact). */
export const FAST: DurabilityOptions = {
  pollMs: 10,
  inbox: { leaseMs: 300, backoff: { baseMs: 5, capMs: 20, jitter: 0 } },
  outbox: { leaseMs: 300, backoff: { baseMs: 5, capMs: 20, jitter: 0 }, inlineMaxMs: 2000 },
}

/** FAST with `overrides` merged in (one level deep for inbox/outbox). */
export function fast(overrides: DurabilityOptions = {}): DurabilityOptions {
  return {
    ...FAST,
    ...overrides,
    inbox: { ...FAST.inbox, ...overrides.inbox },
    outbox: { ...FAST.outbox, ...overrides.outbox },
  }
}

type DeadInfo = { kind: 'inbox' | 'outbox'; id: string; error: { message: string; code?: string } | null }
type AmbiguousInfo = { key: string; chatId: string }

/** A bot under test with what it reported. */
export interface TestBot {
  bot: Bot
  provider: MockProvider
  /** The tap around the bot's backend (undefined without durability). */
  tap: TapBackend | undefined
  errors: unknown[]
  warnings: string[]
  dead: DeadInfo[]
  ambiguous: AmbiguousInfo[]
}

export interface BotSpec extends Omit<BotConfig, 'provider' | 'logger'> {
  provider?: MockProvider
  /** Registers handlers before the bot starts. */
  setup?: (bot: Bot) => void
  /** Do not wrap the backend in a TapBackend. */
  untapped?: boolean
}

/** Creates bots for one test file and stops every bot not abandoned after each test. */
export function useBots(): {
  create(spec?: BotSpec): TestBot
  start(spec?: BotSpec): Promise<TestBot>
  /** A crashed bot is never stopped (its journal calls never settle). */
  abandon(bot: TestBot): void
} {
  const live = new Set<TestBot>()
  afterEach(async () => {
    // A test that failed half-way may leave sends at a gate; open them so stop() can finish.
    for (const gate of openGates) gate.release()
    const bots = [...live]
    live.clear()
    await Promise.all(bots.map((t) => t.bot.stop()))
  })
  const create = (spec: BotSpec = {}): TestBot => {
    const { provider = new MockProvider(), setup, untapped, durability, ...rest } = spec
    const errors: unknown[] = []
    const warnings: string[] = []
    let tap: TapBackend | undefined
    let options = durability
    if (durability && !untapped) {
      tap = new TapBackend(durability.backend ?? new MemoryDurability())
      options = { ...durability, backend: tap }
    }
    const bot = new Bot({
      ...rest,
      provider,
      ...(options ? { durability: options } : {}),
      logger: { warn: (m) => warnings.push(m), error: (m, e) => errors.push(e ?? m) },
    })
    const t: TestBot = { bot, provider, tap, errors, warnings, dead: [], ambiguous: [] }
    bot.on('error', (error) => errors.push(error))
    bot.on('durability:dead', (info) => t.dead.push(info))
    bot.on('durability:ambiguous', (info) => t.ambiguous.push(info))
    setup?.(bot)
    live.add(t)
    return t
  }
  return {
    create,
    async start(spec) {
      const t = create(spec)
      await t.bot.start()
      return t
    },
    abandon(t) {
      live.delete(t)
    },
  }
}

/** A call through the tap, before it reaches the backend. */
export type TapCall =
  | { op: 'write'; scopeId: string; name: WriteLabel; writes: readonly JournalWrite[] }
  | { op: 'read'; scopeId: string; kind: RecordKind; ids: readonly string[] }
  | { op: 'due' | 'list' | 'count' | 'purge'; scopeId: string; kind: RecordKind }
  | { op: 'start' | 'stop' | 'now' | 'scopes' }

/** One write that reached the backend, with its results. */
export interface TappedWrite {
  /** The write's name, or its names when writes were merged into one call (a mark of a sent reply with its message's completion). */
  name: WriteLabel
  writes: readonly JournalWrite[]
  results: JournalWriteResult[]
}

/**
 * Wraps a backend: records every write (name, records, results) and counts every call; an
 * interceptor runs before each call and may delay it (return a promise) or fail it (throw).
 */
export class TapBackend implements DurabilityBackend {
  readonly kind: string
  readonly shared: boolean
  readonly scoped: boolean
  readonly writes: TappedWrite[] = []
  readonly counts = new Map<string, number>()
  #interceptors: ((call: TapCall) => void | Promise<void>)[] = []
  readonly whenHalted?: () => Promise<Error>

  constructor(readonly inner: DurabilityBackend) {
    this.kind = inner.kind
    this.shared = inner.shared
    this.scoped = inner.scoped
    if (inner.whenHalted) this.whenHalted = () => inner.whenHalted!()
  }

  /** Adds an interceptor; returns a function that removes it. */
  intercept(interceptor: (call: TapCall) => void | Promise<void>): () => void {
    this.#interceptors.push(interceptor)
    return () => {
      this.#interceptors = this.#interceptors.filter((i) => i !== interceptor)
    }
  }

  /** How many times `op` was called. */
  count(op: TapCall['op']): number {
    return this.counts.get(op) ?? 0
  }

  /** Every record written under `name` (puts only), in order. */
  written<R = InboxRecord | OutboxRecord>(name: WriteName): R[] {
    // In a merged write, the records of this name are those of its journal ('outbox.markSent': outbox records).
    return this.writes.flatMap((w) =>
      w.writes.flatMap((write) => ('record' in write && nameOfOp(w.name, write.kind) === name ? [write.record as R] : [])),
    )
  }

  start(): Promise<void> {
    return this.#call({ op: 'start' }, () => this.inner.start())
  }

  stop(): Promise<void> {
    return this.#call({ op: 'stop' }, () => this.inner.stop())
  }

  now(): Promise<number> {
    return this.#call({ op: 'now' }, () => this.inner.now())
  }

  scopes(): Promise<string[]> {
    return this.#call({ op: 'scopes' }, () => this.inner.scopes())
  }

  journal(scopeId: string): Journal {
    const inner = this.inner.journal(scopeId)
    return {
      scopeId,
      read: (kind, ids) => this.#call({ op: 'read', scopeId, kind, ids }, () => inner.read(kind, ids)),
      due: (kind, until, limit) => this.#call({ op: 'due', scopeId, kind }, () => inner.due(kind, until, limit)),
      list: (kind, query: JournalListQuery) => this.#call({ op: 'list', scopeId, kind }, () => inner.list(kind, query)),
      count: (kind) => this.#call({ op: 'count', scopeId, kind }, () => inner.count(kind)),
      purge: (kind, state, olderThan, limit) =>
        this.#call({ op: 'purge', scopeId, kind }, () => inner.purge(kind, state, olderThan, limit)),
      countOlder: (kind, state, olderThan, limit) =>
        this.#call({ op: 'count', scopeId, kind }, () => inner.countOlder(kind, state, olderThan, limit)),
      write: (name, writes) =>
        this.#call({ op: 'write', scopeId, name, writes }, async () => {
          const results = await inner.write(name, writes)
          this.writes.push({ name, writes, results })
          return results
        }),
    } as Journal
  }

  async #call<T>(call: TapCall, run: () => Promise<T>): Promise<T> {
    this.counts.set(call.op, (this.counts.get(call.op) ?? 0) + 1)
    for (const interceptor of this.#interceptors) await interceptor(call)
    return run()
  }
}

/** Waits until the bot's sweeper has completed `n` more sweeps (each sweep starts with a clock sync). */
export async function sweeps(t: TestBot, n: number, timeoutMs = 5000): Promise<void> {
  const target = t.tap!.count('now') + n + 1
  await waitFor(() => t.tap!.count('now') >= target, { timeoutMs, message: `${n} sweeps` })
}

/** Holds the provider's sends that match at a gate until released. */
export interface SendGate {
  /** Sends waiting at the gate now. */
  readonly waiting: number
  /** Resolves when `n` sends wait at the gate. */
  reached(n?: number): Promise<void>
  release(): void
}

const openGates = new Set<SendGate>()

export function holdSends(provider: MockProvider, match: (chatId: string, content: OutboundContent) => boolean = () => true): SendGate {
  const original = provider.send.bind(provider)
  const gate = deferred()
  let open = false
  let waiting = 0
  provider.send = async (chatId: string, content: OutboundContent): Promise<ProviderSendResult> => {
    if (!open && match(chatId, content)) {
      waiting++
      await gate.promise
      waiting--
    }
    return original(chatId, content)
  }
  const handle: SendGate = {
    get waiting() {
      return waiting
    },
    reached: (n = 1) => waitFor(() => waiting >= n, { message: `${n} sends at the gate` }).then(() => undefined),
    release() {
      open = true
      gate.resolve()
      openGates.delete(handle)
    },
  }
  openGates.add(handle)
  return handle
}

/** The text of content. */
export function textOf(content: OutboundContent): string {
  return typeof content === 'string' ? content : (content.text ?? content.caption ?? '')
}

/** Counts how many times each text went out (over several providers: the channel's own log). */
export function tally(...providers: MockProvider[]): Map<string, number> {
  const counts = new Map<string, number>()
  for (const provider of providers) for (const s of provider.sent) counts.set(textOf(s.content), (counts.get(textOf(s.content)) ?? 0) + 1)
  return counts
}
