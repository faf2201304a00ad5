/**
 * The seed's "Idempotency keys": the three key rules, per-bot explicit keys, the fingerprint and
 * `onDiverged`, before('send') hooks run once, and `idempotencyKey` never reaching the provider.
 */
import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { MemoryDurability } from '../../src/core/index.js'
import type { Bot } from '../../src/core/bot/bot.js'
import type { OutboxRecord } from '../../src/core/durability/journal/records.js'
import { TEXT, text } from '../../src/core/bot/matchers.js'
import { flow } from '../../src/core/bot/flow.js'
import { crashable } from '../../src/testing/crashable.js'
import { CrashableProvider } from '../../src/testing/crashable-provider.js'
import { MockProvider } from '../../src/testing/mock-provider.js'
import { waitFor } from '../../test-utils/wait.js'
import { fast, recordId, useBots, type TestBot } from './helpers.js'

const bots = useBots()

/** Replays a done inbound record the way an operator would, and waits until it is done again. */
async function replay(t: TestBot, id: string): Promise<void> {
  const before = t.bot.durability!.metrics().inboundReplayed
  await t.bot.durability!.replayInbound(id)
  await waitFor(
    async () => t.bot.durability!.metrics().inboundReplayed > before && (await t.bot.durability!.inbox.get(id))!.state === 'done',
  )
  await t.bot.idle()
}

describe('Rule 1: `options.idempotencyKey` when you pass one', () => {
  it("`bot.send(chatId, text, { idempotencyKey: 'invoice:42' })`: a second send under the key is answered from the outbox", async () => {
    const t = await bots.start({ durability: fast() })
    const first = await t.bot.send('c1', 'Invoice 42', { idempotencyKey: 'invoice:42' })
    const second = await t.bot.send('c1', 'Invoice 42', { idempotencyKey: 'invoice:42' })
    expect(t.provider.texts()).toEqual(['Invoice 42'])
    expect(first).toMatchObject({ key: 'invoice:42', deduped: false })
    expect(second).toEqual({ key: 'invoice:42', messageId: first.messageId, messageIds: [first.messageId], deduped: true })
    expect(await t.bot.durability!.outbox.get('invoice:42')).toMatchObject({
      keySource: 'explicit',
      fingerprint: null,
      state: 'sent',
      providerMessageId: first.messageId,
    })
    expect(t.bot.durability!.metrics()).toMatchObject({ outboxJournaled: 1, outboxDeduped: 1 })
  })

  it('an explicit key names one send of the bot, whatever the chat: another chat under it gets nothing, and the logger is told', async () => {
    const t = await bots.start({ durability: fast() })
    await t.bot.send('c1', 'Your code is 1234', { idempotencyKey: 'code:1' })
    const other = await t.bot.send('c2', 'Your code is 5678', { idempotencyKey: 'code:1' })
    await t.bot.enqueue('c3', 'Your code is 9999', { idempotencyKey: 'code:1' })
    await t.bot.idle()
    expect(other).toMatchObject({ key: 'code:1', deduped: true })
    expect(t.provider.sent.map((s) => s.chatId)).toEqual(['c1'])
    const told = t.warnings.filter((w) => w.includes('idempotency key "code:1" names a send to chat "c1"'))
    expect(told).toHaveLength(2)
    expect(told[0]).toContain('nothing went to "c2"')
    expect(told[1]).toContain('nothing went to "c3"')
  })

  it('explicit keys are never compared: the key you pass names the send', async () => {
    const t = await bots.start({ durability: fast() })
    await t.bot.send('c1', 'Invoice 42', { idempotencyKey: 'invoice:42' })
    const again = await t.bot.send('c1', 'Invoice 42 (corrected)', { idempotencyKey: 'invoice:42' })
    expect(again.deduped).toBe(true)
    expect(t.provider.texts()).toEqual(['Invoice 42'])
    expect(t.bot.durability!.metrics().outboxDiverged).toBe(0)
    expect(t.warnings).toEqual([])
  })

  it('explicit keys are per bot: two bots enqueueing `reminder:1` each send their own', async () => {
    const backend = new MemoryDurability()
    const a = await bots.start({ botId: 'clinic', durability: fast({ backend }) })
    const b = await bots.start({ botId: 'salon', durability: fast({ backend }) })
    expect(await a.bot.enqueue('c1', 'Clinic reminder', { idempotencyKey: 'reminder:1' })).toEqual({ key: 'reminder:1' })
    expect(await b.bot.enqueue('c1', 'Salon reminder', { idempotencyKey: 'reminder:1' })).toEqual({ key: 'reminder:1' })
    await waitFor(() => a.provider.sent.length === 1 && b.provider.sent.length === 1)
    expect(a.provider.texts()).toEqual(['Clinic reminder'])
    expect(b.provider.texts()).toEqual(['Salon reminder'])
    expect(a.bot.durability!.metrics().outboxDeduped + b.bot.durability!.metrics().outboxDeduped).toBe(0)
  })
})

describe('Rule 2: while handling an inbound message, `<inbound record id>:<n>`', () => {
  const echo3 = (bot: Bot) =>
    bot.when(TEXT, async (ctx) => {
      await ctx.reply('one')
      await bot.send(ctx.chatId, 'two')
      await ctx.reply({ text: 'three' })
    })

  it('the n-th send made for that message gets `<id>:<n>`', async () => {
    const t = await bots.start({ durability: fast(), setup: echo3 })
    await t.provider.receive({ id: 'wamid.1', chatId: 'c1', text: 'hi' })
    await t.bot.idle()
    const id = recordId('wamid.1') // mock:c1:wamid.1
    const sent = await t.bot.durability!.outbox.list({ state: 'sent' })
    expect(sent.map((r) => [r.key, r.keySource, r.inboundId, r.ordinal])).toEqual([
      [`${id}:1`, 'derived', id, 1],
      [`${id}:2`, 'derived', id, 2],
      [`${id}:3`, 'derived', id, 3],
    ])
  })

  it('a replayed message’s sends are answered from the outbox (that is how a replay avoids sending the same reply twice)', async () => {
    const t = await bots.start({ durability: fast(), setup: echo3 })
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await t.bot.idle()
    await replay(t, recordId('m1'))
    expect(t.provider.texts()).toEqual(['one', 'two', 'three'])
    expect(t.bot.durability!.metrics()).toMatchObject({ outboxJournaled: 3, outboxDeduped: 3, outboxDiverged: 0 })
  })

  it('if a replay makes a different number of sends, the extra sends go out', async () => {
    let replies = 1
    const t = await bots.start({
      durability: fast(),
      setup: (bot) =>
        bot.when(TEXT, async (ctx) => {
          for (let n = 1; n <= replies; n++) await ctx.reply(`reply ${n}`)
        }),
    })
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await t.bot.idle()
    replies = 2
    await replay(t, recordId('m1'))
    expect(t.provider.texts()).toEqual(['reply 1', 'reply 2'])
  })

  it('a conversation step uses the message that fed it, so the replies of a flow keep their keys', async () => {
    const t = await bots.start({
      durability: fast(),
      setup: (bot) =>
        bot.when(
          text('signup'),
          flow('signup')
            .ask('Your name?')
            .ask('Your email?', async (ctx) => {
              await ctx.reply('Thanks')
            }),
        ),
    })
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'signup' })
    await t.provider.receive({ id: 'm2', chatId: 'c1', text: 'Bob' })
    await t.provider.receive({ id: 'm3', chatId: 'c1', text: 'b@x' })
    await t.bot.idle()
    const keys = Object.fromEntries((await t.bot.durability!.outbox.list({ state: 'sent' })).map((r) => [r.payload as string, r.key]))
    expect(keys).toEqual({ 'Your name?': `${recordId('m1')}:1`, 'Your email?': `${recordId('m2')}:1`, Thanks: `${recordId('m3')}:1` })
  })
})

describe('Rule 3: otherwise a random key', () => {
  it('a second call is not recognised as the same send', async () => {
    const t = await bots.start({ durability: fast() })
    const first = await t.bot.send('c1', 'Hello')
    const second = await t.bot.send('c1', 'Hello')
    expect(first.key).not.toBe(second.key)
    expect(t.provider.texts()).toEqual(['Hello', 'Hello'])
    const records = await t.bot.durability!.outbox.list({ state: 'sent' })
    expect(records.map((r) => r.keySource)).toEqual(['random', 'random'])
  })

  it('the send still gets retries', async () => {
    const t = await bots.start({ durability: fast() })
    t.provider.failNext(2)
    const result = await t.bot.send('c1', 'Hello')
    expect(t.provider.texts()).toEqual(['Hello'])
    expect(await t.bot.durability!.outbox.get(result.key)).toMatchObject({ state: 'sent', attempts: 3, keySource: 'random' })
  })

  it('the send still survives a crash', async () => {
    const shared = new MemoryDurability()
    const a = crashable(shared).crashAfter('outbox.journal')
    const first = await bots.start({ provider: new CrashableProvider(a), durability: fast({ backend: a, instanceId: 'i1' }) })
    void first.bot.enqueue('c1', 'Reminder')
    await a.whenCrashed()
    bots.abandon(first)
    expect(first.provider.sent).toEqual([])
    const second = await bots.start({ durability: fast({ backend: shared, instanceId: 'i1' }) })
    await waitFor(() => second.provider.sent.length === 1)
    expect(second.provider.texts()).toEqual(['Reminder'])
  })
})

describe('The fingerprint and `onDiverged`', () => {
  it("the outbox stores a fingerprint of each send (chat + content, before the before('send') hooks)", async () => {
    let stamp = 0
    const t = await bots.start({
      durability: fast(),
      setup: (bot) => {
        bot.before('send', (send) => ({ ...send, content: `${send.content as string} #${++stamp}` }))
        bot.when(TEXT, (ctx) => ctx.reply('Hello'))
      },
    })
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await t.bot.idle()
    const record = (await t.bot.durability!.outbox.get(`${recordId('m1')}:1`))!
    expect(record.payload).toBe('Hello #1')
    const expected = createHash('sha256').update('c1').update('\u0000').update(JSON.stringify('Hello')).digest('hex')
    expect(record.fingerprint).toBe(expected)
    // The hook makes different content on the replay, but the handler made the same: no divergence.
    await replay(t, recordId('m1'))
    expect(t.provider.texts()).toEqual(['Hello #1'])
    expect(t.bot.durability!.metrics().outboxDiverged).toBe(0)
  })

  it("`onDiverged: 'send'` (default) sends the new content under a new key, counts `outboxDiverged` and logs a warning", async () => {
    let answer = 'Your order shipped'
    const t = await bots.start({ durability: fast(), setup: (bot) => bot.when(TEXT, (ctx) => ctx.reply(answer)) })
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'status?' })
    await t.bot.idle()
    answer = 'Your order is delayed'
    await replay(t, recordId('m1'))
    expect(t.provider.texts()).toEqual(['Your order shipped', 'Your order is delayed'])
    expect(t.bot.durability!.metrics().outboxDiverged).toBe(1)
    expect(t.warnings.join('\n')).toContain(`different content under key "${recordId('m1')}:1"`)
    const keys = (await t.bot.durability!.outbox.list({ state: 'sent' })).map((r) => r.key)
    expect(keys).toHaveLength(2)
    expect(keys[1]).toMatch(new RegExp(`^${recordId('m1')}:1~[0-9a-f]{12}$`))

    // A second replay down the same new path finds the diverged send instead of sending a third time.
    await replay(t, recordId('m1'))
    expect(t.provider.texts()).toEqual(['Your order shipped', 'Your order is delayed'])
  })

  it("`onDiverged: 'skip'` answers it from the recorded send, as before; `outboxDiverged` counts it and a warning is logged", async () => {
    let answer = 'AI answer one'
    const t = await bots.start({
      durability: fast({ outbox: { onDiverged: 'skip' } }),
      setup: (bot) => bot.when(TEXT, (ctx) => ctx.reply(answer)),
    })
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'question' })
    await t.bot.idle()
    answer = 'AI answer two'
    await replay(t, recordId('m1'))
    expect(t.provider.texts()).toEqual(['AI answer one'])
    expect(t.bot.durability!.metrics()).toMatchObject({ outboxDiverged: 1, outboxDeduped: 1 })
    expect(t.warnings.join('\n')).toMatch(/onDiverged: 'skip'/)
    expect((await t.bot.durability!.outbox.list()).map((r: OutboxRecord) => r.key)).toEqual([`${recordId('m1')}:1`])
  })
})

describe('Hooks and the provider', () => {
  it("before('send') hooks run once per send, however often it is retried", async () => {
    let before = 0
    let after = 0
    const t = await bots.start({
      durability: fast(),
      setup: (bot) => {
        bot.before('send', () => void before++)
        bot.after('send', () => void after++)
      },
    })
    t.provider.failNext(2)
    await t.bot.send('c1', 'inline', { idempotencyKey: 'k1' })
    expect([before, after]).toEqual([1, 1])

    t.provider.failNext(2)
    await t.bot.enqueue('c1', 'background', { idempotencyKey: 'k2' })
    await waitFor(() => t.provider.texts().includes('background'))
    await t.bot.idle()
    expect([before, after]).toEqual([2, 2])
    expect(await t.bot.durability!.outbox.get('k2')).toMatchObject({ state: 'sent', attempts: 3 })
  })

  it('the provider never sees `idempotencyKey`: core strips it before calling the provider', async () => {
    const t = await bots.start({
      durability: fast(),
      setup: (bot) =>
        bot.before('send', (send) => ({ ...send, content: { ...(send.content as object), idempotencyKey: 'from-a-hook' } as never })),
    })
    await t.bot.send('c1', { text: 'Hello', idempotencyKey: 'in-the-content' } as never, { idempotencyKey: 'k1' })
    await t.bot.enqueue('c1', { text: 'Later' }, { idempotencyKey: 'k2' })
    await waitFor(() => t.provider.sent.length === 2)
    for (const sent of t.provider.sent) expect(sent.content).not.toHaveProperty('idempotencyKey')
    expect(t.provider.sent.map((s) => s.content)).toEqual([{ text: 'Hello' }, { text: 'Later' }])
  })

  it('the provider never sees `idempotencyKey` without durability either', async () => {
    const t = await bots.start({})
    await t.bot.send('c1', { text: 'Hello', idempotencyKey: 'x' } as never, { idempotencyKey: 'k1' })
    expect(t.provider.sent.map((s) => s.content)).toEqual([{ text: 'Hello' }])
  })
})
