/**
 * The Telegram transport in long-polling mode against a fake Bot API server on 127.0.0.1: text,
 * photo and document in and out, `getFile` downloads (live and replayed), the 4096-character
 * limit, and an update confirmed only once the inbox journaled it.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { MemoryDurability } from '../../src/core/index.js'
import type { Context } from '../../src/core/bot/context.js'
import { DOCUMENT, IMAGE, INTERACTION, TEXT } from '../../src/core/bot/matchers.js'
import { loadMediaOf } from '../../src/core/provider/media.js'
import { TelegramProvider } from '../../src/providers/telegram/index.js'
import { waitFor } from '../../test-utils/wait.js'
import { AdmitGate } from './admit-gate.js'
import { FakeTelegram } from './fixtures/fake-telegram.js'
import { FAST, useBots } from './harness.js'
import { inboxRecordId } from '../../src/core/durability/outbox/keys.js'

const TOKEN = '123456:AAH-secret-bot-token_value'
const bots = useBots()
let fake: FakeTelegram
afterEach(async () => {
  await fake?.stop()
})

async function startFake(): Promise<FakeTelegram> {
  fake = await new FakeTelegram(TOKEN).start()
  return fake
}

const provider = () => new TelegramProvider({ token: TOKEN, apiRoot: fake.origin, pollTimeoutSeconds: 1, onError: () => undefined })

describe('TelegramProvider: long polling', () => {
  it('receives a text and replies through sendMessage; the update is confirmed after it was journaled', async () => {
    await startFake()
    const backend = new MemoryDurability()
    const bot = await bots.start({ provider: provider(), durability: { ...FAST, backend } }, (b) =>
      b.when(TEXT, (ctx: Context) => ctx.reply(`echo: ${ctx.message.text}`).then(() => undefined)),
    )
    const id = fake.push(fake.message({ text: 'hi' }))
    await waitFor(() => fake.sent.length === 1)
    expect(fake.sent[0]).toMatchObject({ method: 'sendMessage', chat_id: '42', text: 'echo: hi' })
    expect(await bot.durability!.inbox.get(inboxRecordId('telegram', '42', `tg:${id}`))).toMatchObject({ chatId: '42' })
    await waitFor(() => fake.offsets.includes(id + 1))
    expect(fake.callsOf('deleteWebhook')).toHaveLength(1)
  })

  it('an update the journal refused is not confirmed: the next getUpdates gets it again, and it is handled once', async () => {
    await startFake()
    const gate = new AdmitGate(new MemoryDurability()).failNext(1)
    const handled: string[] = []
    await bots.start({ provider: provider(), durability: { ...FAST, backend: gate } }, (b) =>
      b.when(TEXT, async (ctx: Context) => void handled.push(ctx.message.text!)),
    )
    const id = fake.push(fake.message({ text: 'once' }))
    await waitFor(() => handled.length === 1, { timeoutMs: 10_000 })
    expect(fake.deliveries.get(id)).toBeGreaterThanOrEqual(2)
    // Never confirmed before it was journaled: every offset asked before the admit that worked is at most the update's id.
    expect(gate.admits).toBe(1)
    await waitFor(() => fake.offsets.includes(id + 1))
    expect(handled).toEqual(['once'])
  })

  it('a photo downloads through getFile, live and on replay (the rebuilt file_id); the journal holds no token', async () => {
    await startFake()
    const backend = new MemoryDurability()
    fake.addFile('AgACAgQAAxkBAAIB-big', Buffer.from('jpeg bytes'))
    const seen: (Buffer | undefined)[] = []
    const bot = await bots.start({ provider: provider(), durability: { ...FAST, backend } }, (b) =>
      b.when(IMAGE, async (ctx: Context) => {
        seen.push(await loadMediaOf(ctx, { throwOnError: true }))
      }),
    )
    const photo = [
      { file_id: 'AgACAgQAAxkBAAIB-small', file_unique_id: 's', width: 90, height: 90 },
      { file_id: 'AgACAgQAAxkBAAIB-big', file_unique_id: 'b', width: 800, height: 800 },
    ]
    const id = fake.push(fake.message({ photo, caption: 'look' }))
    await waitFor(() => seen.length === 1)
    expect(seen[0]).toEqual(Buffer.from('jpeg bytes'))
    const record = await bot.durability!.inbox.get(inboxRecordId('telegram', '42', `tg:${id}`))
    expect(record!.event).toMatchObject({
      text: 'look',
      media: { type: 'image', stored: { provider: 'telegram', v: 1, data: { fileId: 'AgACAgQAAxkBAAIB-big' } } },
    })
    expect(JSON.stringify(record)).not.toContain(TOKEN)
    await bot.durability!.replayInbound(inboxRecordId('telegram', '42', `tg:${id}`))
    await waitFor(() => seen.length === 2)
    expect(seen[1]).toEqual(Buffer.from('jpeg bytes'))
    expect(fake.callsOf('getFile').map((p) => p.file_id)).toEqual(['AgACAgQAAxkBAAIB-big', 'AgACAgQAAxkBAAIB-big'])
  })

  it('a document keeps its file name and mime type; a button press arrives as an interaction', async () => {
    await startFake()
    fake.addFile('BQACAgQAAxkBAAIC', Buffer.from('%PDF'), 'documents/file_1.pdf')
    const seen: unknown[] = []
    await bots.start({ provider: provider(), durability: { ...FAST } }, (b) => {
      b.when(
        DOCUMENT,
        async (ctx: Context) =>
          void seen.push({
            media: ctx.message.media?.fileName,
            mime: ctx.message.media?.mimeType,
            bytes: (await loadMediaOf(ctx))?.toString(),
          }),
      )
      b.when(INTERACTION, async (ctx: Context) => void seen.push({ pressed: ctx.message.interaction?.id }))
    })
    fake.push(
      fake.message({
        document: { file_id: 'BQACAgQAAxkBAAIC', file_unique_id: 'd', file_name: 'invoice.pdf', mime_type: 'application/pdf' },
      }),
    )
    fake.push({ callback_query: { id: 'cq1', from: { id: 42 }, data: 'yes', message: { message_id: 5, date: 1, chat: { id: 42 } } } })
    await waitFor(() => seen.length === 2)
    expect(seen).toEqual([{ media: 'invoice.pdf', mime: 'application/pdf', bytes: '%PDF' }, { pressed: 'yes' }])
    await waitFor(() => fake.callsOf('answerCallbackQuery').length === 1)
  })

  it('sends photo by URL, document by bytes (multipart) with a caption, buttons as an inline keyboard, and splits texts over 4096', async () => {
    await startFake()
    const p = provider()
    const bot = await bots.start({ provider: p, durability: { ...FAST } })
    expect(p.textLimit).toBe(4096)
    await bot.send('42', { media: { type: 'image', url: 'https://example.com/a.jpg' }, caption: 'a photo' })
    await bot.send('42', { media: { type: 'document', buffer: Buffer.from('hello'), fileName: 'hello.txt' }, caption: 'a file' })
    await bot.send('42', {
      text: 'pick one',
      buttons: [
        { id: 'yes', title: 'Yes' },
        { id: 'no', title: 'No' },
      ],
    })
    await bot.send('42', 'x'.repeat(5000))
    expect(fake.sent.map((s) => s.method)).toEqual(['sendPhoto', 'sendDocument', 'sendMessage', 'sendMessage', 'sendMessage'])
    expect(fake.sent[0]).toMatchObject({ file: 'https://example.com/a.jpg', caption: 'a photo' })
    expect(fake.sent[1]).toMatchObject({ caption: 'a file', file: { name: 'hello.txt', bytes: Buffer.from('hello') } })
    expect(fake.sent[2]!.reply_markup).toEqual({
      inline_keyboard: [[{ text: 'Yes', callback_data: 'yes' }], [{ text: 'No', callback_data: 'no' }]],
    })
    expect(fake.sent.slice(3).map((s) => s.text!.length)).toEqual([4096, 904])
  })
})
