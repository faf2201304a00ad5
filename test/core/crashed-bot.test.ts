/**
 * The contract's crash-loop recipe: abandon the crashed bot and start a new one. A crash may come
 * while `bot.start()` still runs (its first sweep replays the message that crashes the process), and
 * the crashed bot's `start()`, `idle()` and `stop()` then settle: start and stop resolve, idle
 * rejects with the crash. Before, the start's later journal calls never settled and it hung for good.
 */
import { describe, expect, it } from 'vitest'
import { onEngine } from '../../test-utils/engine.js'
import { Bot } from '../../src/core/bot/bot.js'
import type { DurabilityBackend } from '../../src/core/durability/journal/backend.js'
import { MemoryDurability } from '../../src/core/index.js'
import type { Context } from '../../src/core/index.js'
import { TEXT } from '../../src/core/bot/matchers.js'
import { MemoryStore } from '../../src/core/store/store.js'
import { crashable, CrashableProvider, MockProvider } from '../../src/testing/index.js'
import { BackendCrashedError } from '../../src/testing/crashable.js'
import { recordId } from '../../test-utils/record-id.js'
import { never, settles, waitFor } from '../../test-utils/wait.js'
import { TapBackend } from './helpers.js'

// These tests arm the message engine's writes, which the steps engine never makes: they run on the
// message engine whatever BOTMESH_ENGINE says (a wrapped backend now runs the engine it would run unwrapped).
onEngine('message')

const store = new MemoryStore()

/** One incarnation of the deployment: instanceId i1, every message handled by `handler`. */
function incarnation(backend: DurabilityBackend, provider: MockProvider, handler: (ctx: Context) => Promise<unknown>): Bot {
  const bot = new Bot({
    provider,
    store,
    logger: { warn: () => {}, error: () => {} },
    durability: { backend, instanceId: 'i1', pollMs: 10, inbox: { maxAttempts: 2, backoff: { baseMs: 5, capMs: 20, jitter: 0 } } },
  })
  bot.on('error', () => {})
  bot.when(TEXT, handler)
  return bot
}

describe('a crashed bot settles', () => {
  it('a crash inside bot.start(): start() and stop() resolve, idle() rejects with the crash; the next incarnation dead-letters the poison message', async () => {
    const shared = new MemoryDurability()
    // The first incarnation journals two messages and dies while both are being handled.
    const a = crashable(shared)
    const firstProvider = new CrashableProvider(a)
    const first = incarnation(a, firstProvider, () => never())
    await first.start()
    await firstProvider.receive({ id: 'm1', chatId: 'c1', text: 'poison' })
    await firstProvider.receive({ id: 'm2', chatId: 'c2', text: 'hello' })
    a.crashNow()

    // The second: the first sweep inside start() takes both back; m1 crashes the process before the
    // claim of m2 left it (on a server the claim's round trip gives the run of m1 that time).
    const tap = new TapBackend(shared)
    const b = crashable(tap)
    tap.intercept(async (call) => {
      if (call.op !== 'write' || call.name !== 'inbox.claim') return
      if (call.writes.some((write) => 'record' in write && (write.record as { chatId?: string }).chatId === 'c2')) {
        await b.whenCrashed()
        await never()
      }
    })
    const second = incarnation(b, new CrashableProvider(b), async (ctx) => {
      if (ctx.message.text !== 'poison') return ctx.reply('hi')
      b.crashNow()
      return never()
    })
    await settles('the crashed bot.start()', second.start())
    expect(b.crashed).toBe(true)
    const idle = await settles(
      'the crashed bot.idle()',
      second.idle().then(
        () => 'idle',
        (error: unknown) => error,
      ),
    )
    expect(idle).toBeInstanceOf(BackendCrashedError)
    expect(idle).toMatchObject({ code: 'BACKEND_CRASHED', message: expect.stringMatching(/crashed .*start a new bot/) })
    await settles('the crashed bot.stop()', second.stop())

    // The third, on the unwrapped backend: m1 ran twice (maxAttempts 2) and is dead-lettered, m2 is answered.
    const provider = new MockProvider()
    const third = incarnation(shared, provider, async (ctx) => ctx.reply(ctx.message.text === 'poison' ? 'never' : 'hi'))
    const dead: string[] = []
    third.on('durability:dead', ({ id }: { id: string }) => dead.push(id))
    await settles('the third bot.start()', third.start())
    await waitFor(() => dead.length === 1 && provider.sent.length === 1)
    await third.idle()
    expect(dead).toEqual([recordId('m1')])
    expect(provider.sent.map((sent) => [sent.chatId, sent.content])).toEqual([['c2', 'hi']])
    await third.stop()
  })

  it('a crash after start: idle() rejects with the crash at once, stop() resolves', async () => {
    const shared = new MemoryDurability()
    const a = crashable(shared).crashBefore('outbox.journal')
    const provider = new CrashableProvider(a)
    const bot = incarnation(a, provider, (ctx) => ctx.reply('hi'))
    await bot.start()
    void provider.receive({ id: 'm1', chatId: 'c1', text: 'hello' })
    const site = await a.whenCrashed()
    expect(site).toMatchObject({ point: 'outbox.journal', when: 'before' })
    const idle = await settles(
      'the crashed bot.idle()',
      bot.idle().then(
        () => 'idle',
        (error: unknown) => error,
      ),
    )
    expect(idle).toBeInstanceOf(BackendCrashedError)
    expect(String(idle)).toContain("before 'outbox.journal'")
    await settles('the crashed bot.stop()', bot.stop())
  })
})
