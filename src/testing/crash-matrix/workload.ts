/**
 * The crash matrix's workload: chats and messages whose handlers touch every journal write
 * (replies, several sends, split texts, enqueued sends, transient and final provider errors, a slow
 * handler and a slow send, a persistent flow, a store that fails once and one that always fails),
 * and the sends each one must produce exactly once.
 */
import { Bot } from '../../core/bot/bot.js'
import type { DurabilityBackend } from '../../core/durability/journal/backend.js'
import type { EncryptionOptions } from '../../core/durability/config.js'
import { partKey } from '../../core/durability/outbox/keys.js'
import { splitText } from '../../core/durability/outbox/split.js'
import { flow } from '../../core/bot/flow.js'
import { text, TEXT } from '../../core/bot/matchers.js'
import { ERROR_CODES } from '../../core/errors/errors.js'
import { ProviderError, UnsupportedContentError } from '../../core/provider/provider-errors.js'
import type { InboundEvent } from '../../core/provider/provider.js'
import { MemoryStore, type Store } from '../../core/store/store.js'
import type { MockProvider } from '../mock-provider.js'
import { inboxRecordId } from '../../core/durability/outbox/keys.js'
import { CRASH_LOOP_CHAT, CRASH_LOOP_TEXT, WORKLOAD_MAX_ATTEMPTS } from './crash-loop.js'

/** The channel's text limit in the workload: small, so replies split. */
export const WORKLOAD_TEXT_LIMIT = 24

const LONG_REPLY = 'a long reply that the outbox must split into parts'
const REMINDER = 'your appointment is tomorrow at nine, see you then'
const DEFERRED = 'enqueued text whose first part fails once, later parts wait'

/**
 * Chats whose messages arrive back to back: each comes while the one before it may still be
 * completing, so a crash can fall while a chat's next message runs ahead of the previous one's
 * completion (message-run.ts), a persistent flow's steps among them.
 */
export const BURST_CHATS: ReadonlySet<string> = new Set(['c-burst', 'c-flowburst', CRASH_LOOP_CHAT])

/** Messages per chat, delivered in order within a chat. */
export function workloadMessages(): InboundEvent[][] {
  const m = (chatId: string, n: number, body: string): InboundEvent => ({ id: `${chatId}.${n}`, chatId, text: body })
  return [
    [m('c-echo', 1, 'echo 1'), m('c-echo', 2, 'echo 2')],
    [m('c-two', 1, 'two')],
    [m('c-long', 1, 'long')],
    [m('c-enqueue', 1, 'enqueue')],
    [m('c-flaky', 1, 'flaky')],
    [m('c-final', 1, 'final')],
    [m('c-slow', 1, 'slow')],
    [m('c-slowsend', 1, 'slowsend')],
    [m('c-flow', 1, 'signup'), m('c-flow', 2, 'Bob'), m('c-flow', 3, 'bob@example.com')],
    [m('c-store', 1, 'storefail')],
    [m('c-poison', 1, 'poison')],
    [m('c-defer', 1, 'deferpart')],
    [m('c-burst', 1, 'burst 1'), m('c-burst', 2, 'burst 2'), m('c-burst', 3, 'burst 3')],
    [m('c-flowburst', 1, 'signup'), m('c-flowburst', 2, 'Ann'), m('c-flowburst', 3, 'ann@example.com')],
  ]
}

/** A send the workload must make: its chat, its text and the outbox key it goes out under. */
export interface ExpectedSend {
  chatId: string
  text: string
  key: string
}

/**
 * Every send that must reach the channel exactly once, with its key: `<inbound record id>:<n>` for a
 * handler's n-th reply, the idempotency key for an enqueued send, and `key#n` for the n-th part of
 * a split text (see src/core/durability/outbox/keys.ts). The checker matches ambiguity per key.
 */
export function expectedSends(): ExpectedSend[] {
  // The workload's provider is a MockProvider ('mock'): its inbound record ids are mock:<chat>:<event id>.
  const recordId = (chatId: string, eventId: string) => inboxRecordId('mock', chatId, eventId)
  const replies = (eventId: string, chatId: string, ...texts: string[]) =>
    texts.map((text, n) => ({ chatId, text, key: `${recordId(chatId, eventId)}:${n + 1}` }))
  const parts = (key: string, chatId: string, body: string) =>
    splitText(body, WORKLOAD_TEXT_LIMIT).map((text, n) => ({ chatId, text, key: partKey(key, n + 1) }))
  return [
    ...replies('c-echo.1', 'c-echo', 'echo 1'),
    ...replies('c-echo.2', 'c-echo', 'echo 2'),
    ...replies('c-two.1', 'c-two', 'one of two', 'two of two'),
    ...parts(`${recordId('c-long', 'c-long.1')}:1`, 'c-long', LONG_REPLY),
    ...parts('reminder:1', 'c-enqueue', REMINDER),
    ...replies('c-flaky.1', 'c-flaky', 'flaky reply'),
    ...replies('c-slow.1', 'c-slow', 'slow done'),
    ...replies('c-slowsend.1', 'c-slowsend', 'slow send'),
    ...replies('c-flow.1', 'c-flow', 'Your name?'),
    ...replies('c-flow.2', 'c-flow', 'Your email?'),
    ...replies('c-flow.3', 'c-flow', 'Thanks Bob'),
    ...replies('c-store.1', 'c-store', 'recovered'),
    ...parts('deferred:1', 'c-defer', DEFERRED),
    ...replies('c-burst.1', 'c-burst', 'burst 1'),
    ...replies('c-burst.2', 'c-burst', 'burst 2'),
    ...replies('c-burst.3', 'c-burst', 'burst 3'),
    ...replies('c-flowburst.1', 'c-flowburst', 'Your name?'),
    ...replies('c-flowburst.2', 'c-flowburst', 'Your email?'),
    ...replies('c-flowburst.3', 'c-flowburst', 'Thanks Ann'),
  ]
}

export function sendId(chatId: string, body: string): string {
  return `${chatId}\u241f${body}`
}

/** Scripts the provider's faults; every generation's provider gets the same script. */
export function scriptProvider(provider: MockProvider): void {
  const chat = (id: string) => (chatId: string) => chatId === id
  provider.failNext(1, new ProviderError(ERROR_CODES.TRANSIENT, 'flaky channel (scripted)'), chat('c-flaky'))
  provider.failNext(1_000, new UnsupportedContentError('scripted final error'), chat('c-final'))
  provider.slowNext(1, 250, chat('c-slowsend'))
  provider.failNext(1, new ProviderError(ERROR_CODES.TRANSIENT, 'first part fails once (scripted)'), chat('c-defer'))
}

/** A store that fails once for c-store and always for c-poison: failures before any handler runs. */
export class WorkloadStore implements Store {
  #failedOnce: boolean

  /** `failedOnce`: the one failure already happened (in an earlier process); `onFailOnce` records it. */
  constructor(
    private readonly inner: Store = new MemoryStore(),
    private readonly options: { failedOnce?: boolean; onFailOnce?: () => void } = {},
  ) {
    this.#failedOnce = options.failedOnce ?? false
  }

  async start(): Promise<void> {
    await this.inner.start?.()
  }

  async stop(): Promise<void> {
    await this.inner.stop?.()
  }

  async getCheckpoint(scope: string, chatId: string) {
    if (chatId === 'c-poison') throw new Error('the store is down for c-poison (scripted)')
    if (chatId === 'c-store' && !this.#failedOnce) {
      this.#failedOnce = true
      this.options.onFailOnce?.()
      throw new Error('the store is down once (scripted)')
    }
    return this.inner.getCheckpoint(scope, chatId)
  }

  getUser: Store['getUser'] = (...args) => this.inner.getUser(...args)
  setUser: Store['setUser'] = (...args) => this.inner.setUser(...args)
  setCheckpoint: Store['setCheckpoint'] = (...args) => this.inner.setCheckpoint(...args)
  deleteCheckpoint: Store['deleteCheckpoint'] = (...args) => this.inner.deleteCheckpoint(...args)
  appendLog: Store['appendLog'] = (...args) => this.inner.appendLog(...args)
  listLog: Store['listLog'] = (...args) => this.inner.listLog(...args)
}

export interface WorkloadBotOptions {
  backend: DurabilityBackend
  provider: MockProvider
  store: Store
  onAmbiguous: 'skip' | 'resend'
  /** Runs the bot with its journal sealed (`durability.encryption`). */
  encryption?: EncryptionOptions
  /** The engine's clock (`durability.clock`): simulated time's, when the case runs on it. */
  clock?: () => number
  /** The handler of the crash loop's head (crash-loop.ts), in a case that delivers that chat. */
  crashLoop?: () => Promise<void>
}

/** The bot under test: short leases and backoffs so a case runs in a fraction of a second. */
export function workloadBot(options: WorkloadBotOptions): Bot {
  const bot = new Bot({
    provider: options.provider,
    store: options.store,
    botId: 'crash-matrix',
    logger: { warn: () => {}, error: () => {} },
    durability: {
      backend: options.backend,
      ...(options.encryption && { encryption: options.encryption }),
      ...(options.clock && { clock: options.clock }),
      instanceId: 'crash-matrix-1',
      pollMs: 10,
      retention: '1h',
      inbox: { leaseMs: 300, maxAttempts: WORKLOAD_MAX_ATTEMPTS, backoff: { baseMs: 5, capMs: 20, jitter: 0 } },
      outbox: { retries: 3, backoff: { baseMs: 5, capMs: 20, jitter: 0 }, inlineMaxMs: 40, onAmbiguous: options.onAmbiguous, leaseMs: 300 },
    },
  })
  bot.on('error', (e: Error) => {
    if (process.env.CRASH_DEBUG) console.error('bot error:', e.message)
  })
  bot.when(text('two'), async (ctx) => {
    await ctx.reply('one of two')
    await ctx.reply('two of two')
  })
  bot.when(text('long'), (ctx) => ctx.reply(LONG_REPLY))
  bot.when(text('enqueue'), (ctx) => bot.enqueue(ctx.chatId, REMINDER, { idempotencyKey: 'reminder:1' }))
  bot.when(text('deferpart'), (ctx) => bot.enqueue(ctx.chatId, DEFERRED, { idempotencyKey: 'deferred:1' }))
  bot.when(text('flaky'), (ctx) => ctx.reply('flaky reply'))
  bot.when(text('final'), (ctx) => ctx.reply('never delivered'))
  bot.when(text('slow'), async (ctx) => {
    await new Promise((resolve) => setTimeout(resolve, 250))
    await ctx.reply('slow done')
  })
  bot.when(text('slowsend'), (ctx) => ctx.reply('slow send'))
  bot.when(text('storefail'), (ctx) => ctx.reply('recovered'))
  bot.when(text('poison'), (ctx) => ctx.reply('poison must never be answered'))
  bot.when(
    text('signup'),
    flow('signup')
      .ask('Your name?', async (ctx, answer) => {
        await ctx.state.set('name', answer.text ?? '')
      })
      .ask('Your email?', async (ctx) => {
        await ctx.reply(`Thanks ${await ctx.state.get('name')}`)
      })
      .persistent(),
  )
  if (options.crashLoop) bot.when(text(CRASH_LOOP_TEXT), options.crashLoop)
  bot.when(TEXT, (ctx) => ctx.reply(ctx.message.text ?? ''))
  return bot
}
