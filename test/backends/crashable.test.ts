/**
 * `crashable(backend)` armed at any moment: the seed's recipe ("drive botA until a.crashed") with
 * the crash armed inside a handler, after the point it names was already reached once, and `nth`
 * counted from the arming.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { onEngine } from '../../test-utils/engine.js'
import { MemoryDurability } from '../../src/core/index.js'
import { Bot } from '../../src/core/bot/bot.js'
import type { Context } from '../../src/core/index.js'
import { TEXT } from '../../src/core/bot/matchers.js'
import { MemoryStore } from '../../src/core/store/store.js'
import { crashable, CrashableProvider, MockProvider, type CrashableBackend } from '../../src/testing/index.js'
import { textOf } from '../../src/core/bot/hooks.js'
import { waitFor } from '../../test-utils/wait.js'
import { recordId } from '../../test-utils/record-id.js'

// These tests arm the message engine's writes, which the steps engine never makes: they run on the
// message engine whatever BOTMESH_ENGINE says (a wrapped backend now runs the engine it would run unwrapped).
onEngine('message')

const FAST = {
  instanceId: 'i1',
  pollMs: 10,
  inbox: { leaseMs: 300, backoff: { baseMs: 5, capMs: 20, jitter: 0 } },
  outbox: { leaseMs: 300, backoff: { baseMs: 5, capMs: 20, jitter: 0 }, onAmbiguous: 'resend' as const },
}

const running: Bot[] = []
afterEach(async () => {
  for (const bot of running.splice(0)) await bot.stop()
})

/**
 * A bot that replies `replies` times, arming `arm` once the first reply went out and was marked sent
 * (a reply's mark waits a moment to ride in its message's completion: the handler waits for it alone).
 */
function crashingBot(a: CrashableBackend, replies: string[], arm: () => void): { bot: Bot; provider: CrashableProvider } {
  const provider = new CrashableProvider(a)
  const bot = new Bot({
    provider,
    store: new MemoryStore(),
    logger: { warn: () => {}, error: () => {} },
    durability: { backend: a, ...FAST },
  })
  bot.on('error', () => {})
  bot.when(TEXT, async (ctx: Context) => {
    await ctx.reply(replies[0]!)
    await waitFor(() => (a.reached.get('outbox.markSent') ?? 0) >= 1, { timeoutMs: 20_000, message: 'the first reply marked sent' })
    arm()
    for (const reply of replies.slice(1)) await ctx.reply(reply)
  })
  return { bot, provider }
}

const texts = (provider: MockProvider) => provider.sent.map((sent) => textOf(sent.content))

describe('crashable(): armed at any moment', () => {
  it('crashBefore armed inside a handler, after the first reply was marked sent, crashes at the next markSent; botB recovers', async () => {
    const shared = new MemoryDurability()
    const a = crashable(shared)
    const { bot: botA, provider } = crashingBot(a, ['one', 'two'], () => a.crashBefore('outbox.markSent'))
    await botA.start()
    void provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    // The seed's recipe: drive botA until a.crashed.
    await waitFor(() => a.crashed, { timeoutMs: 20_000, message: 'botA crashed' })
    expect(a.crashSite).toEqual({ point: 'outbox.markSent', when: 'before', occurrence: 1 })
    expect(a.reached.get('outbox.markSent')).toBe(2)
    // The provider was called for "two"; its result was never recorded.
    expect(texts(provider)).toEqual(['one', 'two'])

    // The restarted process runs the same handler; "one" is answered from the outbox, "two" is resent.
    const recovered = new MockProvider()
    const botB = new Bot({
      provider: recovered,
      store: new MemoryStore(),
      logger: { warn: () => {}, error: () => {} },
      durability: { backend: shared, ...FAST },
    })
    botB.on('error', () => {})
    botB.when(TEXT, async (ctx: Context) => {
      await ctx.reply('one')
      await ctx.reply('two')
    })
    running.push(botB)
    await botB.start()
    await waitFor(async () => (await botB.durability!.inbox.get(recordId('m1')))?.state === 'done', {
      timeoutMs: 20_000,
      message: 'botB completed m1',
    })
    await botB.idle()
    expect(texts(recovered)).toEqual(['two'])
  }, 60_000)

  it("{ nth } counts from the arming, not from the wrapper's creation", async () => {
    const a = crashable(new MemoryDurability())
    const { bot, provider } = crashingBot(a, ['one', 'two', 'three'], () => a.crashAfter('outbox.markSent', { nth: 2 }))
    await bot.start()
    void provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await waitFor(() => a.crashed, { timeoutMs: 20_000, message: 'the bot crashed' })
    // The first markSent after the arming is "two"'s; the second, "three"'s, is where it crashes.
    expect(texts(provider)).toEqual(['one', 'two', 'three'])
    expect(a.crashSite).toEqual({ point: 'outbox.markSent', when: 'after', occurrence: 2 })
    expect(a.reached.get('outbox.markSent')).toBe(3)
  }, 60_000)

  it('armed before any write, { nth } counts from the start as before', async () => {
    const a = crashable(new MemoryDurability()).crashBefore('outbox.markSent', { nth: 2 })
    const { bot, provider } = crashingBot(a, ['one', 'two', 'three'], () => {})
    await bot.start()
    void provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await waitFor(() => a.crashed, { timeoutMs: 20_000, message: 'the bot crashed' })
    expect(texts(provider)).toEqual(['one', 'two'])
    expect(a.crashSite).toEqual({ point: 'outbox.markSent', when: 'before', occurrence: 2 })
  }, 60_000)
})
