/**
 * A reply's `sent` mark rides in its message's completion write (sent-marks.ts): one round trip
 * instead of two when the reply is the message's last effect, and nothing else about the outbox
 * changes. A handler that goes on past the event loop's turn, or a send that follows, gets the mark
 * written alone first; a crash before the merged write is the ambiguous window of the contract.
 */
import { describe, expect, it } from 'vitest'
import { onEngine } from '../../test-utils/engine.js'
import { MemoryDurability } from '../../src/core/index.js'
import { describeLabel } from '../../src/core/durability/journal/crash-points.js'
import { waitingAtEndOfTurn } from '../../src/core/durability/outbox/sent-marks.js'
import { TEXT } from '../../src/core/bot/matchers.js'
import { MemoryStore } from '../../src/core/store/store.js'
import { crashable, CrashableProvider, MockProvider } from '../../src/testing/index.js'
import { Bot } from '../../src/core/bot/bot.js'
import { deferred, waitFor } from '../../test-utils/wait.js'
import { fast, recordId, useBots, type TestBot } from './helpers.js'

// These tests arm the message engine's writes, which the steps engine never makes: they run on the
// message engine whatever BOTMESH_ENGINE says (a wrapped backend now runs the engine it would run unwrapped).
onEngine('message')

const bots = useBots()

/**
 * The journal writes of `t` for message m1, by label, and the kinds of records each wrote. Lease
 * heartbeats are left out: on a loaded machine a handler may outlive a heartbeat period.
 */
function writesOf(t: TestBot): { label: string; kinds: string[] }[] {
  return t
    .tap!.writes.map((w) => ({ label: describeLabel(w.name), kinds: w.writes.map((x) => x.kind) }))
    .filter((w) => w.label !== 'instances.beat' && !w.label.endsWith('.heartbeat'))
}

describe('a reply’s sent mark rides in its message’s completion', () => {
  it('one reply: admit, journal, then the mark and the completion in ONE write (outbox op first)', async () => {
    const t = await bots.start({ durability: fast(), setup: (bot) => bot.when(TEXT, (ctx) => ctx.reply('hi back')) })
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await t.bot.idle()
    expect(writesOf(t)).toEqual([
      { label: 'inbox.admit', kinds: ['inbox'] },
      { label: 'outbox.journal', kinds: ['outbox'] },
      { label: 'outbox.markSent+inbox.complete', kinds: ['outbox', 'inbox'] },
    ])
    expect(await t.bot.durability!.outbox.get(`${recordId('m1')}:1`)).toMatchObject({ state: 'sent', lease: null })
    expect(await t.bot.durability!.inbox.get(recordId('m1'))).toMatchObject({ state: 'done' })
  })

  it('two replies: the first mark lands alone before the second send is journaled; the second rides with the completion', async () => {
    const t = await bots.start({
      durability: fast(),
      setup: (bot) =>
        bot.when(TEXT, async (ctx) => {
          await ctx.reply('one')
          await ctx.reply('two')
        }),
    })
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await t.bot.idle()
    expect(writesOf(t).map((w) => w.label)).toEqual([
      'inbox.admit',
      'outbox.journal',
      'outbox.markSent',
      'outbox.journal',
      'outbox.markSent+inbox.complete',
    ])
  })

  it('marks their completion took leave the end of the turn: a burst handled within one turn keeps no message there', async () => {
    const t = await bots.start({ durability: fast(), setup: (bot) => bot.when(TEXT, (ctx) => ctx.reply('hi back')) })
    const completed = () => writesOf(t).filter((w) => w.label === 'outbox.markSent+inbox.complete').length
    // On the memory backend a burst is admitted, answered and completed in microtasks: the turn does not end
    // in between, so whatever the end of the turn holds piles up (it held every message of a burst).
    await Promise.all(Array.from({ length: 20 }, (_, n) => t.provider.receive({ id: `m${n}`, chatId: `c${n}`, text: 'hi' })))
    for (let spin = 0; spin < 100_000 && completed() < 20; spin++) await Promise.resolve()
    expect(completed()).toBe(20)
    expect(waitingAtEndOfTurn()).toBe(0)
  })

  it('a second send under the key of a reply whose mark waits is answered from the outbox, with its message id', async () => {
    const results: unknown[] = []
    const t = await bots.start({
      durability: fast(),
      setup: (bot) =>
        bot.when(TEXT, async (ctx) => {
          results.push(await bot.send(ctx.chatId, 'invoice', { idempotencyKey: 'invoice:42' }))
          results.push(await bot.send(ctx.chatId, 'invoice', { idempotencyKey: 'invoice:42' }))
        }),
    })
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await t.bot.idle()
    expect(t.provider.texts()).toEqual(['invoice'])
    const [first, second] = results as { messageId: string; deduped: boolean }[]
    expect(second).toMatchObject({ messageId: first!.messageId, deduped: true })
  })

  it('a handler that goes on working after its reply: the mark is written alone at the end of the turn, before the completion', async () => {
    const working = deferred<void>()
    let marked = false
    const t = await bots.start({
      durability: fast(),
      setup: (bot) =>
        bot.when(TEXT, async (ctx) => {
          await ctx.reply('on it')
          await working.promise
        }),
    })
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    // Waits as long as it takes (no timer asserted): the mark lands while the handler still works.
    await waitFor(async () => (marked = (await t.bot.durability!.outbox.get(`${recordId('m1')}:1`))?.state === 'sent'))
    expect(marked).toBe(true)
    expect(await t.bot.durability!.inbox.get(recordId('m1'))).toMatchObject({ state: 'processing' })
    working.resolve()
    await t.bot.idle()
    expect(writesOf(t).map((w) => w.label)).toEqual(['inbox.admit', 'outbox.journal', 'outbox.markSent', 'inbox.complete'])
  })

  it('a blink of the merged write is retried: the reply is marked sent once, the message done, nothing sent twice', async () => {
    let blinks = 1
    const t = bots.create({ durability: fast(), setup: (bot) => bot.when(TEXT, (ctx) => ctx.reply('hi back')) })
    t.tap!.intercept((call) => {
      if (call.op === 'write' && describeLabel(call.name) === 'outbox.markSent+inbox.complete' && blinks-- > 0) throw new Error('blink')
    })
    await t.bot.start()
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await t.bot.idle()
    expect(t.provider.texts()).toEqual(['hi back'])
    expect(await t.bot.durability!.outbox.get(`${recordId('m1')}:1`)).toMatchObject({ state: 'sent' })
    expect(await t.bot.durability!.inbox.get(recordId('m1'))).toMatchObject({ state: 'done' })
    expect(t.bot.durability!.metrics()).toMatchObject({ staleLeases: 0, outboxAmbiguous: 0, inboundReplayed: 0 })
  })

  it.each(['skip', 'resend'] as const)(
    "crashBefore('outbox.markSent') hits the merged write: the inbound replays and the reply is ambiguous (%s)",
    async (policy) => {
      const shared = new MemoryDurability()
      const a = crashable(shared).crashBefore('outbox.markSent')
      const durability = fast({ instanceId: 'i1', outbox: { onAmbiguous: policy } })
      const store = new MemoryStore()
      const first = new Bot({ provider: new CrashableProvider(a), store, durability: { ...durability, backend: a }, logger: quiet })
      first.when(TEXT, (ctx) => ctx.reply('hi back'))
      await first.start()
      void (first.provider as MockProvider).receive({ id: 'm1', chatId: 'c1', text: 'hi' })
      await a.whenCrashed()
      expect(a.crashSite).toEqual({ point: 'outbox.markSent', when: 'before', occurrence: 1 })
      expect(a.reached.get('inbox.complete')).toBe(1)

      const second = bots.create({ durability: { ...durability, backend: shared }, store, untapped: true })
      second.bot.when(TEXT, (ctx) => ctx.reply('hi back'))
      await second.bot.start()
      await waitFor(async () => (await second.bot.durability!.inbox.get(recordId('m1')))?.state === 'done')
      await second.bot.idle()
      expect(second.ambiguous).toEqual([{ key: `${recordId('m1')}:1`, chatId: 'c1' }])
      const sentAgain = second.provider.texts().length
      expect(sentAgain).toBe(policy === 'resend' ? 1 : 0)
    },
  )
})

const quiet = { warn: () => {}, error: () => {} }
