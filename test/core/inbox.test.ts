/**
 * The seed's inbox: journaled before any handler runs, done only once its effects settled,
 * redeliveries recognised, fail-closed (and failOpen), pre-handler failures retried with
 * inbox.backoff and dead-lettered after inbox.maxAttempts, a throwing handler acknowledged.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { MemoryDurability } from '../../src/core/index.js'
import { backoffMs } from '../../src/core/durability/backoff.js'
import type { InboxRecord } from '../../src/core/durability/journal/records.js'
import { writeNames } from '../../src/core/durability/journal/crash-points.js'
import { JournalUnavailableError } from '../../src/core/errors/errors.js'
import { INTERACTION, TEXT } from '../../src/core/bot/matchers.js'
import { MemoryStore } from '../../src/core/store/store.js'
import { MockProvider } from '../../src/testing/mock-provider.js'
import { deferred, waitFor } from '../../test-utils/wait.js'
import { fast, holdSends, recordId, sweeps, useBots } from './helpers.js'

const bots = useBots()
afterEach(() => {
  vi.restoreAllMocks()
})

describe('The inbox', () => {
  it('every admitted message or interaction is written down before any handler runs', async () => {
    const provider = new MockProvider()
    const seen: (InboxRecord | undefined)[] = []
    const t = await bots.start({
      provider,
      durability: fast({ instanceId: 'i1' }),
      setup: (bot) => {
        bot.when(INTERACTION, async (ctx) => {
          seen.push(await bot.durability!.inbox.get(ctx.ref.id))
        })
        bot.when(TEXT, async (ctx) => {
          seen.push(await bot.durability!.inbox.get(ctx.ref.id))
        })
      },
    })
    await provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await provider.receive({ id: 'b1', chatId: 'c1', interaction: { id: 'yes', data: { n: 1 } } })
    await t.bot.idle()
    expect(seen).toHaveLength(2)
    expect(seen[0]).toMatchObject({
      id: recordId('m1'),
      kind: 'message',
      state: 'processing',
      attempts: 1,
      chatId: 'c1',
      provider: 'mock',
      lease: { owner: 'i1', token: 1 },
    })
    expect(seen[0]!.event).toMatchObject({ id: 'm1', chatId: 'c1', text: 'hi' })
    expect(seen[1]).toMatchObject({
      id: recordId('b1'),
      kind: 'interaction',
      state: 'processing',
      event: { interaction: { id: 'yes', data: { n: 1 } } },
    })
    expect(t.bot.durability!.metrics().inboundJournaled).toBe(2)
  })

  it('the sink resolves once the event is journaled (a webhook answers 200 only then)', async () => {
    const provider = new MockProvider()
    const release = deferred()
    const t = await bots.start({ provider, durability: fast(), setup: (bot) => bot.when(TEXT, () => release.promise) })
    await provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    // The handler is still running, but the event is already journaled.
    expect((await t.bot.durability!.inbox.get(recordId('m1')))!.state).toBe('processing')
    release.resolve()
    await t.bot.idle()
  })

  it('marked done only once its effects settled (a reply the handler did not await)', async () => {
    const provider = new MockProvider()
    const gate = holdSends(provider, (_chat, content) => content === 'slow reply')
    let returned = false
    const t = await bots.start({
      provider,
      durability: fast(),
      setup: (bot) =>
        bot.when(TEXT, (ctx) => {
          void ctx.reply('slow reply')
          void bot.enqueue(ctx.chatId, 'enqueued', { idempotencyKey: 'e1' })
          returned = true
        }),
    })
    await provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await gate.reached()
    await waitFor(() => returned)
    await sweeps(t, 2)
    expect((await t.bot.durability!.inbox.get(recordId('m1')))!.state).toBe('processing')
    gate.release()
    await waitFor(async () => (await t.bot.durability!.inbox.get(recordId('m1')))!.state === 'done')
    // The reply's sent mark lands before the completion, or in front of it in the same write.
    const ops = t.tap!.writes.flatMap((w) => w.writes.map((x) => ({ names: writeNames(w.name), write: x })))
    const sentAt = ops.findIndex(
      (op) =>
        op.names.includes('outbox.markSent') && 'record' in op.write && (op.write.record as { key: string }).key === `${recordId('m1')}:1`,
    )
    const completeAt = ops.findIndex((op) => op.names.includes('inbox.complete') && op.write.kind === 'inbox')
    expect(sentAt).toBeGreaterThanOrEqual(0)
    expect(sentAt).toBeLessThan(completeAt)
    // The enqueued send was journaled before the inbound was done.
    expect(t.tap!.written<{ key: string }>('outbox.journal').map((r) => r.key)).toContain('e1')
    await t.bot.idle()
  })

  it('redeliveries are recognised (`inboundDuplicates`), in the same process and after a restart', async () => {
    const backend = new MemoryDurability()
    const store = new MemoryStore()
    let runs = 0
    const setup = (bot: import('../../src/core/bot/bot.js').Bot) =>
      bot.when(TEXT, async (ctx) => {
        runs++
        await ctx.reply(`echo ${ctx.message.text}`)
      })
    const first = await bots.start({ provider: new MockProvider(), store, durability: fast({ backend, instanceId: 'i1' }), setup })
    await first.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await first.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await first.bot.idle()
    expect(runs).toBe(1)
    expect(first.bot.durability!.metrics().inboundDuplicates).toBe(1)
    await first.bot.stop()

    // A new process has no in-memory dedupe: the journal recognises the redelivery.
    const second = await bots.start({ provider: new MockProvider(), store, durability: fast({ backend, instanceId: 'i1' }), setup })
    await second.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await second.bot.idle()
    expect(runs).toBe(1)
    expect(second.provider.sent).toEqual([])
    expect(second.bot.durability!.metrics()).toMatchObject({ inboundDuplicates: 1, inboundJournaled: 0 })
  })

  it('a redelivery while the first delivery is still being handled is a duplicate', async () => {
    const provider = new MockProvider()
    const release = deferred()
    let runs = 0
    const t = await bots.start({
      provider,
      durability: fast(),
      setup: (bot) =>
        bot.when(TEXT, async () => {
          runs++
          await release.promise
        }),
    })
    await provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    release.resolve()
    await t.bot.idle()
    expect(runs).toBe(1)
    expect(t.bot.durability!.metrics().inboundDuplicates).toBe(1)
  })
})

describe('Fail-closed', () => {
  it("if the journal cannot record an inbound event, the event is not dispatched; an 'error' is emitted and a redelivery is processed", async () => {
    const provider = new MockProvider()
    let runs = 0
    const t = await bots.start({
      provider,
      durability: fast(),
      setup: (bot) =>
        bot.when(TEXT, async (ctx) => {
          runs++
          await ctx.reply('handled')
        }),
    })
    const removeFault = t.tap!.intercept((call) => {
      if (call.op === 'write' && call.name === 'inbox.admit') throw new Error('disk full')
    })
    const refused = await provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' }).catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(JournalUnavailableError)
    expect((refused as JournalUnavailableError).code).toBe('JOURNAL_UNAVAILABLE')
    expect((refused as Error).message).toMatch(/disk full/)
    expect(t.errors.some((e) => e instanceof JournalUnavailableError)).toBe(true)
    await t.bot.idle()
    expect(runs).toBe(0)
    expect(provider.sent).toEqual([])
    expect(await t.bot.durability!.inbox.list()).toEqual([])

    removeFault()
    await provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await t.bot.idle()
    expect(runs).toBe(1)
    expect(provider.texts()).toEqual(['handled'])
    expect((await t.bot.durability!.inbox.get(recordId('m1')))!.state).toBe('done')
    expect(t.bot.durability!.metrics().inboundDuplicates).toBe(0)
  })

  it('a redelivery that arrives while the first delivery is still being journaled is not acknowledged before the journal answered (so a failed write never loses it)', async () => {
    const provider = new MockProvider()
    let runs = 0
    const t = await bots.start({
      provider,
      durability: fast(),
      setup: (bot) =>
        bot.when(TEXT, async (ctx) => {
          runs++
          await ctx.reply('handled')
        }),
    })
    const slowWrite = deferred()
    const removeFault = t.tap!.intercept(async (call) => {
      if (call.op === 'write' && call.name === 'inbox.admit') {
        await slowWrite.promise
        throw new Error('timeout')
      }
    })
    const first = provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' }).then(
      () => 'acknowledged',
      () => 'refused',
    )
    // The channel gives up waiting and redelivers while the first write is still in flight.
    const redelivery = provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' }).then(
      () => 'acknowledged',
      () => 'refused',
    )
    slowWrite.resolve()
    const outcomes = [await first, await redelivery]
    removeFault()
    await t.bot.idle()
    // Whatever was acknowledged must be journaled (or handled): a 200 for nothing is a lost message.
    if (outcomes.includes('acknowledged')) {
      expect(runs).toBe(1)
    } else {
      expect(runs).toBe(0)
      await provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
      await t.bot.idle()
      expect(runs).toBe(1)
    }
    expect(provider.texts()).toEqual(['handled'])
  })

  it('`failOpen: true` dispatches an inbound event even when the journal cannot record it', async () => {
    const provider = new MockProvider()
    let runs = 0
    const t = await bots.start({
      provider,
      durability: fast({ failOpen: true }),
      setup: (bot) =>
        bot.when(TEXT, async (ctx) => {
          runs++
          await ctx.reply('handled anyway')
        }),
    })
    t.tap!.intercept((call) => {
      if (call.op === 'write' && call.name === 'inbox.admit') throw new Error('disk full')
    })
    await provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await t.bot.idle()
    expect(runs).toBe(1)
    expect(provider.texts()).toEqual(['handled anyway'])
    expect(t.errors.some((e) => e instanceof JournalUnavailableError)).toBe(true)
    expect(await t.bot.durability!.inbox.list()).toEqual([])
  })
})

describe('Pre-handler failures', () => {
  it('inbound events whose processing keeps failing before the handlers run (the store is down) are retried with `inbox.backoff`', async () => {
    const store = new MemoryStore()
    const getCheckpoint = vi.spyOn(store, 'getCheckpoint')
    getCheckpoint.mockRejectedValueOnce(new Error('store down')).mockRejectedValueOnce(new Error('store down'))
    const provider = new MockProvider()
    let runs = 0
    const t = await bots.start({
      provider,
      store,
      durability: fast({ inbox: { backoff: { baseMs: 40, capMs: 1000, jitter: 0 } } }),
      setup: (bot) =>
        bot.when(TEXT, async (ctx) => {
          runs++
          await ctx.reply('finally')
        }),
    })
    await provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await waitFor(async () => (await t.bot.durability!.inbox.get(recordId('m1')))!.state === 'done')
    expect(runs).toBe(1)
    expect(provider.texts()).toEqual(['finally'])
    // Each failure is retried in place, in the chat's lane: a run charged again, the error kept on the record.
    const retries = t.tap!.written<InboxRecord>('inbox.claim')
    expect(retries.map((r) => [r.state, r.attempts])).toEqual([
      ['processing', 2],
      ['processing', 3],
    ])
    expect(retries[0]!.lastError).toMatchObject({ message: 'store down' })
    // Exponential from baseMs, no jitter: at least 40 ms after the first run, 80 ms after the second.
    expect(retries[1]!.updatedAt - retries[0]!.updatedAt).toBeGreaterThanOrEqual(70)
    expect(await t.bot.durability!.inbox.get(recordId('m1'))).toMatchObject({ state: 'done', attempts: 3 })
    expect(t.bot.durability!.metrics()).toMatchObject({ inboundJournaled: 1, inboundReplayed: 2, inboundDead: 0 })
    expect(t.errors.filter((e) => (e as Error).message === 'store down')).toHaveLength(2)
  })

  it('… and dead-lettered after `inbox.maxAttempts`', async () => {
    const store = new MemoryStore()
    const getCheckpoint = vi.spyOn(store, 'getCheckpoint').mockRejectedValue(new Error('store down'))
    const provider = new MockProvider()
    let runs = 0
    const t = await bots.start({
      provider,
      store,
      durability: fast({ inbox: { maxAttempts: 3 } }),
      setup: (bot) => bot.when(TEXT, () => void runs++),
    })
    await provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await waitFor(() => t.dead.length === 1)
    expect(t.dead[0]).toMatchObject({ kind: 'inbox', id: recordId('m1'), error: { message: 'store down' } })
    expect(await t.bot.durability!.inbox.get(recordId('m1'))).toMatchObject({
      state: 'dead',
      attempts: 3,
      lease: null,
      nextAttemptAt: null,
    })
    await sweeps(t, 3)
    expect(getCheckpoint).toHaveBeenCalledTimes(3)
    expect(runs).toBe(0)
    expect(t.bot.durability!.metrics()).toMatchObject({ inboundDead: 1, inboundReplayed: 2 })
    expect((await t.bot.durability!.inbox.list({ state: 'dead' })).map((r) => r.id)).toEqual([recordId('m1')])
  })

  it('backoff between failed inbound attempts is exponential, capped, with jitter', () => {
    const backoff = { baseMs: 1000, capMs: 60_000, jitter: 0.2 }
    expect([1, 2, 3, 4, 7, 8].map((n) => backoffMs(backoff, n, 0, () => 0.5))).toEqual([1000, 2000, 4000, 8000, 60_000, 60_000])
    expect(backoffMs(backoff, 1, 0, () => 0)).toBe(800)
    expect(backoffMs(backoff, 1, 0, () => 1)).toBe(1200)
    const spread = new Set(Array.from({ length: 50 }, () => backoffMs(backoff, 3)))
    expect(spread.size).toBeGreaterThan(1)
    for (const wait of spread) (expect(wait).toBeGreaterThanOrEqual(3200), expect(wait).toBeLessThanOrEqual(4800))
  })
})

describe('A handler that throws', () => {
  it("is not retried: its side effects already ran; the error goes to bot.on('error') and the event is acknowledged", async () => {
    const provider = new MockProvider()
    let runs = 0
    const t = await bots.start({
      provider,
      durability: fast(),
      setup: (bot) =>
        bot.when(TEXT, async (ctx) => {
          runs++
          await ctx.reply('side effect')
          throw new Error('handler bug')
        }),
    })
    await provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await t.bot.idle()
    expect(t.errors.map((e) => (e as Error).message)).toEqual(['handler bug'])
    expect(await t.bot.durability!.inbox.get(recordId('m1'))).toMatchObject({ state: 'done', attempts: 1 })
    await sweeps(t, 3)
    expect(runs).toBe(1)
    expect(provider.texts()).toEqual(['side effect'])
    expect(t.bot.durability!.metrics()).toMatchObject({ inboundReplayed: 0, inboundDead: 0 })
  })
})
