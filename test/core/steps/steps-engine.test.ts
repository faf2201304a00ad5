/**
 * The steps engine (src/core/durability/steps/steps-engine.ts), chosen with BOTMESH_ENGINE=steps on
 * the memory backend: a message costs one admit, one journal per send and one settle; a chat's
 * order is the journal's (a message is queued behind its chat's unfinished one and handed over by
 * its settle); a run that died is taken back by the sweep, its sent reply answered from the outbox.
 */
import { describe, expect, it, vi } from 'vitest'
import { onEngine } from '../../../test-utils/engine.js'
import { MemoryDurability } from '../../../src/core/durability/memory/memory-durability.js'
import { MessageEngine } from '../../../src/core/durability/message-engine.js'
import { StepsEngine } from '../../../src/core/durability/steps/steps-engine.js'
import { TEXT } from '../../../src/core/bot/matchers.js'
import { deferred, waitFor } from '../../../test-utils/wait.js'
import { fast, recordId, useBots } from '../helpers.js'

const bots = useBots()
onEngine('steps')

describe('the steps engine on memory', () => {
  it('is chosen for a bot on a backend that speaks the steps, and not with coordination', async () => {
    const stepsAdmits = vi.spyOn(StepsEngine.prototype, 'admit')
    const oldAdmits = vi.spyOn(MessageEngine.prototype, 'admit')
    try {
      const steps = await bots.start({ durability: fast({ backend: new MemoryDurability() }), untapped: true })
      await steps.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
      expect([stepsAdmits.mock.calls.length, oldAdmits.mock.calls.length]).toEqual([1, 0])
      const coordinated = await bots.start({ durability: fast({ backend: new MemoryDurability(), coordination: true }), untapped: true })
      await coordinated.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
      expect([stepsAdmits.mock.calls.length, oldAdmits.mock.calls.length]).toEqual([1, 1])
    } finally {
      stepsAdmits.mockRestore()
      oldAdmits.mockRestore()
    }
  })

  it('answers each message once, each chat in its order, and journals every one done with its replies sent', async () => {
    const backend = new MemoryDurability()
    const t = await bots.start({
      durability: fast({ backend }),
      untapped: true,
      setup: (bot) =>
        bot.when(TEXT, async (ctx) => {
          await ctx.reply(`a:${ctx.message.text}`)
          await ctx.reply(`b:${ctx.message.text}`)
        }),
    })
    const chats = ['c1', 'c2', 'c3']
    await Promise.all(Array.from({ length: 30 }, (_, n) => t.provider.receive({ id: `m${n}`, chatId: chats[n % 3]!, text: `${n}` })))
    await t.bot.idle()
    for (const [c, chatId] of chats.entries()) {
      const numbers = Array.from({ length: 10 }, (_, k) => `${k * 3 + c}`)
      expect(t.provider.texts(chatId)).toEqual(numbers.flatMap((n) => [`a:${n}`, `b:${n}`]))
    }
    for (let n = 0; n < 30; n++) expect((await t.bot.durability!.inbox.get(recordId(`m${n}`, chats[n % 3])))?.state).toBe('done')
    expect(await t.bot.durability!.outbox.get(`${recordId('m7', 'c2')}:2`)).toMatchObject({ state: 'sent' })
    expect(t.bot.durability!.metrics()).toMatchObject({ inboundJournaled: 30, outboxJournaled: 60, staleLeases: 0 })
    expect(t.errors).toEqual([])
  })

  it('queues a message behind its chat’s unfinished one in the journal and runs it once that one settled', async () => {
    const gate = deferred()
    const started: string[] = []
    const t = await bots.start({
      durability: fast({ backend: new MemoryDurability() }),
      untapped: true,
      setup: (bot) =>
        bot.when(TEXT, async (ctx) => {
          started.push(ctx.message.text ?? '')
          if (ctx.message.text === 'first') await gate.promise
          await ctx.reply(`re:${ctx.message.text}`)
        }),
    })
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'first' })
    await t.provider.receive({ id: 'm2', chatId: 'c1', text: 'second' })
    await t.provider.receive({ id: 'm3', chatId: 'c2', text: 'other chat' })
    await waitFor(() => t.provider.texts('c2').length === 1, { message: 'the other chat ran' })
    expect(started).toEqual(['first', 'other chat'])
    expect(await t.bot.durability!.inbox.get(recordId('m2'))).toMatchObject({ state: 'pending', attempts: 0, lease: null })
    gate.resolve()
    await t.bot.idle()
    expect(started).toEqual(['first', 'other chat', 'second'])
    expect(t.provider.texts('c1')).toEqual(['re:first', 're:second'])
    expect(await t.bot.durability!.inbox.get(recordId('m2'))).toMatchObject({ state: 'done', attempts: 1 })
  })

  it('a run that died is taken back by the instance’s next run: its reply answered from the outbox, the chat’s next message after it', async () => {
    const backend = new MemoryDurability()
    const hung = deferred()
    // The first run holds long leases and never sweeps: it is as quiet as a dead process.
    const first = await bots.start({
      durability: fast({ backend, instanceId: 'i1', pollMs: '1h', inbox: { leaseMs: '1h' } }),
      untapped: true,
      setup: (bot) =>
        bot.when(TEXT, async (ctx) => {
          await ctx.reply(`re:${ctx.message.text}`)
          await hung.promise
        }),
    })
    await first.provider.receive({ id: 'm1', chatId: 'c1', text: 'one' })
    await first.provider.receive({ id: 'm2', chatId: 'c1', text: 'two' })
    await waitFor(() => first.provider.texts('c1').length === 1, { message: 'the first reply went out' })
    bots.abandon(first)
    const second = await bots.start({
      durability: fast({ backend, instanceId: 'i1' }),
      untapped: true,
      setup: (bot) =>
        bot.when(TEXT, async (ctx) => {
          await ctx.reply(`re:${ctx.message.text}`)
        }),
    })
    await second.bot.idle()
    // m1's reply was sent by the dead run: answered from the outbox, not sent again; m2 ran after it.
    expect(first.provider.texts('c1')).toEqual(['re:one'])
    expect(second.provider.texts('c1')).toEqual(['re:two'])
    expect(await second.bot.durability!.inbox.get(recordId('m1'))).toMatchObject({ state: 'done', attempts: 2 })
    expect(await second.bot.durability!.inbox.get(recordId('m2'))).toMatchObject({ state: 'done', attempts: 1 })
    expect(second.bot.durability!.metrics()).toMatchObject({ outboxDeduped: 1, inboundReplayed: 1 })
    hung.resolve()
  })
})
