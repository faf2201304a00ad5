/**
 * The TikTok transport against a fake Business Messaging API on 127.0.0.1, through durable bots:
 * the `TikTok-Signature` check (401 and nothing journaled on a bad or stale one), 200 only after
 * the journal, text replies split at 6000, images uploaded then sent by media id, API error codes
 * as the outbox's classes (a rate limit honoured, a closed window dead-lettered), and a crash whose
 * replay downloads the image by its journaled coordinates.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { SQLiteStore } from '../../src/backends/sqlite/index.js'
import type { Bot } from '../../src/core/bot/bot.js'
import type { Context } from '../../src/core/bot/context.js'
import { inboxRecordId } from '../../src/core/durability/outbox/keys.js'
import { MemoryDurability } from '../../src/core/index.js'
import { IMAGE, TEXT } from '../../src/core/bot/matchers.js'
import { loadMediaOf } from '../../src/core/provider/media.js'
import {
  OutsideSessionWindowError,
  PayloadTooLargeError,
  RateLimitedError,
  UnsupportedContentError,
} from '../../src/core/provider/provider-errors.js'
import { crashable } from '../../src/testing/crashable.js'
import { TikTokProvider, tiktokSignatureOf } from '../../src/providers/tiktok/index.js'
import { ChannelApiError, ProviderConfigError } from '../../src/providers/shared/errors.js'
import { waitFor } from '../../test-utils/wait.js'
import { AdmitGate } from './admit-gate.js'
import { BUSINESS_ID, CLIENT_SECRET, FakeTikTok, TIKTOK_TOKEN, postTikTok, tiktokMessage } from './fixtures/fake-tiktok.js'
import { FAST, useBots } from './harness.js'

const bots = useBots()
const dir = mkdtempSync(join(tmpdir(), 'botmesh-tiktok-'))
const providers: TikTokProvider[] = []
let api: FakeTikTok
afterEach(async () => {
  await Promise.all(providers.splice(0).map((p) => p.stop()))
  await api?.stop()
  api = undefined!
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function provider(): Promise<TikTokProvider> {
  api ??= await new FakeTikTok().start()
  const p = new TikTokProvider({
    accessToken: TIKTOK_TOKEN,
    businessId: BUSINESS_ID,
    clientSecret: CLIENT_SECRET,
    webhook: { port: 0, host: '127.0.0.1' },
    apiRoot: api.origin,
    onError: () => undefined,
  })
  providers.push(p)
  return p
}

async function tiktokBot(backend: MemoryDurability | AdmitGate = new MemoryDurability()) {
  const p = await provider()
  const handled: string[] = []
  const bot = await bots.start({ provider: p, durability: { ...FAST, backend } }, (b) =>
    b.when(TEXT, async (ctx: Context) => {
      handled.push(ctx.message.text!)
      await ctx.reply(`echo: ${ctx.message.text}`)
    }),
  )
  return { bot, origin: p.webhookOrigin!, handled }
}

describe('TikTokProvider', () => {
  it('refuses a bad, stale or missing signature with 401 and journals nothing', async () => {
    const { origin, bot } = await tiktokBot()
    const body = tiktokMessage('msg-in-1', { type: 'text', text: { body: 'hi' } })
    const now = Math.floor(Date.now() / 1000)
    expect((await postTikTok(origin, body, tiktokSignatureOf(body, 'another-secret', now))).status).toBe(401)
    expect((await postTikTok(origin, body, tiktokSignatureOf(body, CLIENT_SECRET, now - 3600))).status).toBe(401)
    expect((await postTikTok(origin, body.replace('hi', 'ho'), tiktokSignatureOf(body, CLIENT_SECRET, now))).status).toBe(401)
    expect((await fetch(`${origin}/tiktok`, { method: 'POST', body })).status).toBe(401)
    expect(await bot.durability!.inbox.list({})).toEqual([])
  })

  it('answers 200 only after the inbox journaled the message; the reply goes to the conversation; a redelivery is handled once', async () => {
    const gate = new AdmitGate(new MemoryDurability())
    const { origin, handled, bot } = await tiktokBot(gate)
    const held = gate.hold()
    const body = tiktokMessage('msg-in-2', { type: 'text', text: { body: 'hello' } })
    let answered = false
    const response = postTikTok(origin, body).then((r) => {
      answered = true
      return r
    })
    await waitFor(() => held.waiting() === 1)
    expect(answered).toBe(false)
    held.release()
    expect((await response).status).toBe(200)
    expect((await postTikTok(origin, body)).status).toBe(200)
    await waitFor(() => api.sent.length === 1)
    await bot.idle()
    expect(handled).toEqual(['hello'])
    expect(api.sent[0]!.body).toEqual({
      business_id: BUSINESS_ID,
      recipient_type: 'CONVERSATION',
      recipient: 'conv-1',
      message_type: 'TEXT',
      text: { body: 'echo: hello' },
    })
    // Echoes of our sends and another account's events are not inbound messages.
    const echo = JSON.stringify({ event: 'im_send_msg', user_openid: BUSINESS_ID, content: '{}' })
    expect((await postTikTok(origin, echo)).status).toBe(200)
    expect((await postTikTok(origin, tiktokMessage('msg-in-3', { type: 'text', text: { body: 'x' } }, 'other'))).status).toBe(200)
    expect((await bot.durability!.inbox.list({})).map((r) => r.id)).toEqual([inboxRecordId('tiktok', 'conv-1', 'msg-in-2')])
  })

  it('sends: a text split at 6000, an image uploaded then sent by media id; refuses what TikTok cannot carry', async () => {
    const p = await provider()
    const bot = await bots.start({ provider: p, durability: { ...FAST } })
    await bot.send('conv-1', 'y'.repeat(6100))
    expect(api.texts().map((t) => t.length)).toEqual([6000, 100])
    await p.send('conv-1', { media: { type: 'image', buffer: Buffer.from('jpeg'), mimeType: 'image/jpeg' } })
    expect(api.uploads).toEqual([{ mediaId: expect.any(String), bytes: Buffer.from('jpeg') }])
    expect(api.sent[2]!.body).toMatchObject({ message_type: 'IMAGE', image: { media_id: api.uploads[0]!.mediaId } })
    const before = api.requests.length
    for (const content of [
      { text: 'p', buttons: [{ id: 'a', title: 'A' }] },
      { media: { type: 'video' as const, url: 'https://example.com/v.mp4' } },
      { media: { type: 'image' as const, buffer: Buffer.from('x') }, caption: 'c' },
    ])
      expect(await p.send('conv-1', content).catch((e: Error) => e)).toBeInstanceOf(UnsupportedContentError)
    expect(await p.send('conv-1', 'z'.repeat(6001)).catch((e: Error) => e)).toBeInstanceOf(PayloadTooLargeError)
    expect(api.requests.length).toBe(before)
  })

  it.each([
    ['a rate limit (40100)', { code: 40100, message: 'Requests made too frequently.' }, RateLimitedError, { retryAfterMs: 1000 }],
    [
      'the reply window is closed',
      { code: 40002, message: 'You can only reply within the 48-hour reply window.' },
      OutsideSessionWindowError,
      {},
    ],
    [
      'an expired token',
      { code: 40105, message: 'The access token is invalid or has expired.' },
      ChannelApiError,
      { code: 'CHANNEL_UNAUTHORIZED', retryable: false },
    ],
    ['a system error', { code: 50000, message: 'System error.' }, ChannelApiError, { code: 'CHANNEL_SERVER_ERROR', retryable: true }],
    ['another rejection', { code: 40002, message: 'Invalid parameter.' }, ChannelApiError, { code: 'CHANNEL_REJECTED', retryable: false }],
  ] as const)('an API error: %s', async (_name, failure, type, fields) => {
    const p = await provider()
    api.failNext(failure)
    const error = await p.send('conv-1', 'hello').catch((e: Error) => e)
    expect(error).toBeInstanceOf(type)
    expect(error).toMatchObject(fields)
    expect((error as Error).message).not.toContain(TIKTOK_TOKEN)
  })

  it('through a durable bot: a rate limit is honoured, a closed window dead-lettered; options are checked', async () => {
    const p = await provider()
    const dead: { error: { code?: string } | null }[] = []
    const bot = await bots.start({ provider: p, durability: { ...FAST, backend: new MemoryDurability() } }, (b) =>
      b.on('durability:dead', (info) => dead.push(info)),
    )
    api.failNext({ code: 40100, message: 'Requests made too frequently.' })
    const started = Date.now()
    await bot.send('conv-1', 'after the limit')
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000)
    api.failNext({ code: 40002, message: 'Outside the 48-hour reply window.' })
    await expect(bot.send('conv-1', 'late')).rejects.toThrow()
    await waitFor(() => dead.length === 1)
    expect(dead[0]!.error).toMatchObject({ code: 'OUTSIDE_SESSION_WINDOW' })
    expect(api.texts()).toEqual(['after the limit'])
    expect(() => new TikTokProvider({ accessToken: '', businessId: 'b', clientSecret: 's', webhook: { port: 0 } })).toThrow(
      ProviderConfigError,
    )
  })

  it('a crash after an image was journaled: the restart replays it, downloads it by its coordinates, replies once', async () => {
    api = await new FakeTikTok().start()
    api.media.set('media-in-7', Buffer.from('the image'))
    const store = new SQLiteStore({ file: join(dir, 'tiktok.db') })
    const backend = store.durability()
    const seen: (Buffer | undefined)[] = []
    const setup = (b: Bot) =>
      b.when(IMAGE, async (ctx: Context) => {
        seen.push(await loadMediaOf(ctx, { throwOnError: true }))
        await ctx.reply('thanks for the image')
      })
    const a = crashable(backend).crashBefore('outbox.journal')
    const firstProvider = await provider()
    const first = await bots.start({ provider: firstProvider, store, durability: { ...FAST, backend: a, instanceId: 't-1' } }, setup)
    const body = tiktokMessage('msg-in-7', { type: 'image', image: { media_id: 'media-in-7' } })
    expect((await postTikTok(firstProvider.webhookOrigin!, body)).status).toBe(200)
    await a.whenCrashed()
    bots.abandon(first)
    await firstProvider.stop()
    const second = await bots.start({ provider: await provider(), store, durability: { ...FAST, backend, instanceId: 't-1' } }, setup)
    const id = inboxRecordId('tiktok', 'conv-1', 'msg-in-7')
    await waitFor(async () => (await second.durability!.inbox.get(id))?.state === 'done')
    expect(seen).toEqual([Buffer.from('the image'), Buffer.from('the image')])
    expect(api.texts()).toEqual(['thanks for the image'])
    const record = await second.durability!.inbox.get(id)
    expect(record!.event).toMatchObject({
      media: {
        type: 'image',
        stored: {
          provider: 'tiktok',
          v: 1,
          data: { kind: 'media', conversationId: 'conv-1', messageId: 'msg-in-7', mediaId: 'media-in-7' },
        },
      },
    })
    expect(JSON.stringify(record)).not.toContain(TIKTOK_TOKEN)
  })
})
