/**
 * `failOpen: true`, end to end: a message the inbox could not journal runs with the ids and keys a
 * journaled one would have had (`ctx.ref.id` = its inbox record id, sends keyed `<record id>:<n>`),
 * so a redelivery once the journal is back is answered from the outbox and nothing replies twice;
 * with the outbox down too, its sends go out unjournaled (`outboxBypassed`, a warning) rather than
 * not at all; and a redelivery in the same process is recognised.
 */
import { describe, expect, it } from 'vitest'
import { MemoryDurability } from '../../src/core/index.js'
import type { Bot } from '../../src/core/bot/bot.js'
import { TEXT } from '../../src/core/bot/matchers.js'
import { MockProvider } from '../../src/testing/mock-provider.js'
import { fast, recordId, useBots, type TapCall } from './helpers.js'

const bots = useBots()

/** A bot that replies twice, recording each message's ctx.ref.id. */
function replyingTwice(refs: string[]): (bot: Bot) => void {
  return (bot) =>
    bot.when(TEXT, async (ctx) => {
      refs.push(ctx.ref.id)
      await ctx.reply(`first to ${ctx.message.text}`)
      await ctx.reply(`second to ${ctx.message.text}`)
    })
}

/** Fails every inbox admission, and with `outbox` every outbox read and write too. */
function journalDown(outbox: boolean): (call: TapCall) => void {
  return (call) => {
    if (call.op === 'write' && call.name === 'inbox.admit') throw new Error('inbox unavailable (scripted)')
    if (!outbox) return
    if (call.op === 'read' && call.kind === 'outbox') throw new Error('outbox unavailable (scripted)')
    if (call.op === 'write' && call.writes.some((write) => write.kind === 'outbox')) throw new Error('outbox unavailable (scripted)')
  }
}

describe('failOpen: true', () => {
  it('runs an unjournaled message under its inbox record id with derived send keys: a redelivery once the journal is back is answered from the outbox', async () => {
    const backend = new MemoryDurability()
    const refs: string[] = []
    const provider = new MockProvider()
    const first = await bots.start({ provider, durability: fast({ backend, failOpen: true }), setup: replyingTwice(refs) })
    const restore = first.tap!.intercept(journalDown(false))
    await provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await first.bot.idle()
    expect(refs).toEqual([recordId('m1')])
    expect(provider.texts()).toEqual(['first to hi', 'second to hi'])
    const journaled = await first.bot.durability!.outbox.list()
    expect(journaled.map((record) => record.key).sort()).toEqual([`${recordId('m1')}:1`, `${recordId('m1')}:2`])
    expect(journaled.every((record) => record.state === 'sent')).toBe(true)
    expect(await first.bot.durability!.inbox.list()).toEqual([])
    restore()
    await first.bot.stop()

    // The journal is back, and the channel redelivers m1 to the next process: it is admitted and
    // runs again, and both replies are answered from the outbox.
    const second = await bots.start({ provider, durability: fast({ backend, failOpen: true }), setup: replyingTwice(refs) })
    await provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await second.bot.idle()
    expect(refs).toEqual([recordId('m1'), recordId('m1')])
    expect(provider.texts()).toEqual(['first to hi', 'second to hi'])
    expect(second.bot.durability!.metrics()).toMatchObject({ outboxDeduped: 2, outboxJournaled: 0 })
    expect(await second.bot.durability!.inbox.get(recordId('m1'))).toMatchObject({ state: 'done' })
  })

  it('with the outbox down too, its sends go out unjournaled (outboxBypassed, a warning) and a redelivery in the same process is a duplicate', async () => {
    const refs: string[] = []
    const provider = new MockProvider()
    const t = await bots.start({ provider, durability: fast({ failOpen: true }), setup: replyingTwice(refs) })
    t.tap!.intercept(journalDown(true))
    await provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await t.bot.idle()
    expect(provider.texts()).toEqual(['first to hi', 'second to hi'])
    expect(t.bot.durability!.metrics()).toMatchObject({ outboxBypassed: 2, outboxJournaled: 0 })
    expect(t.warnings.filter((w) => w.includes('bypasses the outbox'))).toHaveLength(2)
    expect(t.warnings.join('\n')).toContain(`${recordId('m1')}:1`)

    await provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await t.bot.idle()
    expect(refs).toEqual([recordId('m1')])
    expect(provider.texts()).toEqual(['first to hi', 'second to hi'])
    expect(t.bot.durability!.metrics().inboundDuplicates).toBe(1)
  })

  it('without failOpen the event is refused and a redelivery is processed (fail-closed, unchanged)', async () => {
    const refs: string[] = []
    const provider = new MockProvider()
    const t = await bots.start({ provider, durability: fast(), setup: replyingTwice(refs) })
    const restore = t.tap!.intercept(journalDown(true))
    await expect(provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })).rejects.toMatchObject({ code: 'JOURNAL_UNAVAILABLE' })
    restore()
    await provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await t.bot.idle()
    expect(refs).toEqual([recordId('m1')])
    expect(provider.texts()).toEqual(['first to hi', 'second to hi'])
  })
})
