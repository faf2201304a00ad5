/** The demo's bot: echo, a persistent signup flow, a photo handler, a long reply that splits, a booking. */
import { Bot } from '../core/bot/bot.js'
import { flow } from '../core/bot/flow.js'
import { IMAGE, text, TEXT } from '../core/bot/matchers.js'
import { loadMediaOf } from '../core/provider/media.js'
import { MemoryStore, type Store } from '../core/store/store.js'
import type { DurabilityBackend } from '../core/durability/journal/backend.js'
import type { MockProvider } from '../testing/mock-provider.js'

/** A store whose record of grace is broken: processing her message fails before any handler runs. */
export class DemoStore implements Store {
  constructor(private readonly inner: Store) {}
  start() {
    return this.inner.start?.() ?? Promise.resolve()
  }
  stop() {
    return this.inner.stop?.() ?? Promise.resolve()
  }
  getUser(scope: string, chatId: string, key: string) {
    return this.inner.getUser(scope, chatId, key)
  }
  setUser(scope: string, chatId: string, key: string, value: Parameters<Store['setUser']>[3]) {
    return this.inner.setUser(scope, chatId, key, value)
  }
  async getCheckpoint(scope: string, chatId: string) {
    if (chatId === 'grace') throw new Error('the CRM record of grace cannot be read')
    return this.inner.getCheckpoint(scope, chatId)
  }
  setCheckpoint(scope: string, chatId: string, checkpoint: Parameters<Store['setCheckpoint']>[2]) {
    return this.inner.setCheckpoint(scope, chatId, checkpoint)
  }
  deleteCheckpoint(scope: string, chatId: string) {
    return this.inner.deleteCheckpoint(scope, chatId)
  }
  appendLog(scope: string, entry: Parameters<Store['appendLog']>[1]) {
    return this.inner.appendLog(scope, entry)
  }
  listLog(scope: string, chatId: string, limit: number) {
    return this.inner.listLog(scope, chatId, limit)
  }
}

export interface DemoBotOptions {
  provider: MockProvider
  store?: Store
  backend: DurabilityBackend
  /** Runs in the booking handler after its reply was sent, before it completes: the demo's crash waits there. */
  afterReply?(chatId: string): Promise<void>
}

export function demoBot(options: DemoBotOptions): Bot {
  const bot = new Bot({
    provider: options.provider,
    store: new DemoStore(options.store ?? new MemoryStore()),
    botId: 'demo',
    durability: {
      backend: options.backend,
      instanceId: 'demo-1',
      pollMs: '250ms',
      inbox: { maxAttempts: 3, backoff: { baseMs: 200, capMs: 1_000 }, leaseMs: '10s' },
      outbox: { retries: 5, backoff: { baseMs: 200, capMs: 2_000 }, inlineMaxMs: '1s', leaseMs: '10s' },
    },
  })
  bot.when(
    text('signup'),
    flow('signup')
      .ask('Welcome! What is your name?', async (ctx, answer) => {
        await ctx.state.set('name', answer.text ?? '')
      })
      .ask('And your email?', async (ctx, answer) => {
        await ctx.user.set('email', answer.text ?? '')
        await ctx.reply(`Thanks ${await ctx.state.get('name')}, you are signed up.`)
      })
      .persistent(),
  )
  bot.when(IMAGE, async (ctx) => {
    const bytes = await loadMediaOf(ctx)
    await ctx.reply(bytes ? `Got your photo (${bytes.length} bytes).` : 'Please send the photo again.')
  })
  bot.when(text('book a table for two'), async (ctx) => {
    await ctx.reply('Booked: a table for two at 8 pm.')
    // Sent, and journaled as sent in the outbox; the handler is not done yet.
    await options.afterReply?.(ctx.message.chatId)
    await ctx.user.set('booking', 'a table for two at 8 pm')
  })
  bot.when(text('tell me a long story'), (ctx) =>
    ctx.reply(
      'Once upon a time a bot journaled every message it received before it answered, and every answer before it sent it. '
        .repeat(3)
        .trim(),
    ),
  )
  bot.when(TEXT, async (ctx) => {
    // A slow handler, so that a crash catches some messages in the middle.
    await new Promise((resolve) => setTimeout(resolve, 120))
    await ctx.reply(`You said: ${ctx.message.text}`)
  })
  return bot
}
