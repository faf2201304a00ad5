/**
 * Messenger and Instagram (both on the Messenger Platform) against a fake Send API and a fake Meta
 * CDN on 127.0.0.1, through durable bots: the subscription check, `X-Hub-Signature-256` (401 and
 * nothing journaled on a bad one), 200 only after the inbox journaled every message, redeliveries
 * handled once, quick replies and postbacks as interactions, sends (text split at the channel's
 * limit, quick replies, attachments), the Send API's failures as the outbox's classes (a rate limit
 * honoured, a closed window dead-lettered), and a crash whose replay downloads the attachment by
 * its journaled CDN URL.
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
import { IMAGE, INTERACTION, TEXT } from '../../src/core/bot/matchers.js'
import { loadMediaOf } from '../../src/core/provider/media.js'
import {
  OutsideSessionWindowError,
  PayloadTooLargeError,
  RateLimitedError,
  RecipientUnreachableError,
  UnsupportedContentError,
} from '../../src/core/provider/provider-errors.js'
import { crashable } from '../../src/testing/crashable.js'
import { InstagramProvider } from '../../src/providers/instagram/index.js'
import { MessengerProvider } from '../../src/providers/messenger/index.js'
import { ChannelApiError, ProviderConfigError } from '../../src/providers/shared/errors.js'
import type { MessagingPlatformProvider } from '../../src/providers/shared/messaging-platform/provider.js'
import { waitFor } from '../../test-utils/wait.js'
import { AdmitGate } from './admit-gate.js'
import { FakeCdn } from './fixtures/fake-cdn.js'
import { FakeSendApi, messageEvent, messagingPayload, postMessaging, type SendApiFailure } from './fixtures/fake-messaging.js'
import { FAST, useBots } from './harness.js'

const ACCESS_TOKEN = 'EAAG-page-token-5f4e3d'
const APP_SECRET = 'app-secret-messaging'
const VERIFY_TOKEN = 'verify-messaging'
const USER = '6532171234567890'
const bots = useBots()
const dir = mkdtempSync(join(tmpdir(), 'botmesh-messaging-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const channels = [
  {
    name: 'messenger' as const,
    object: 'page' as const,
    accountId: '104857600000001',
    textLimit: 2000,
    make: (api: string, options: object = {}) => new MessengerProvider({ ...common(api), pageId: '104857600000001', ...options }),
  },
  {
    name: 'instagram' as const,
    object: 'instagram' as const,
    accountId: '17841400000000001',
    textLimit: 1000,
    make: (api: string, options: object = {}) => new InstagramProvider({ ...common(api), accountId: '17841400000000001', ...options }),
  },
]

function common(api: string) {
  return {
    accessToken: ACCESS_TOKEN,
    appSecret: APP_SECRET,
    verifyToken: VERIFY_TOKEN,
    webhook: { port: 0, host: '127.0.0.1' },
    graphApiRoot: api,
    onError: () => undefined,
  }
}

describe.each(channels)('$name', (channel) => {
  const providers: MessagingPlatformProvider[] = []
  let api: FakeSendApi
  afterEach(async () => {
    await Promise.all(providers.splice(0).map((p) => p.stop()))
    await api?.stop()
    api = undefined!
  })
  const provider = async (options: object = {}) => {
    api ??= await new FakeSendApi(ACCESS_TOKEN, channel.accountId).start()
    // The fake CDN answers for scontent.xx.fbcdn.net on 127.0.0.1: an origin the download policy trusts only when named.
    const p = channel.make(api.origin, { mediaTestOrigins: ['https://scontent.xx.fbcdn.net'], ...options })
    providers.push(p)
    return p
  }
  const payload = (...messaging: Record<string, unknown>[]) => messagingPayload(channel.object, channel.accountId, messaging)
  const text = (mid: string, body: string) => messageEvent(channel.accountId, USER, { mid, text: body })

  async function bot(backend: MemoryDurability | AdmitGate = new MemoryDurability()) {
    api = await new FakeSendApi(ACCESS_TOKEN, channel.accountId).start()
    const p = await provider()
    const handled: string[] = []
    const b = await bots.start({ provider: p, durability: { ...FAST, backend } }, (b) => {
      b.when(TEXT, async (ctx: Context) => {
        handled.push(ctx.message.text!)
        await ctx.reply(`echo: ${ctx.message.text}`)
      })
      b.when(INTERACTION, async (ctx: Context) => void handled.push(`pressed ${ctx.message.interaction!.id}`))
    })
    return { bot: b, origin: p.webhookOrigin!, handled }
  }

  it('answers the subscription check only with the verify token; refuses bad signatures with 401 and journals nothing', async () => {
    const { origin, bot: b } = await bot()
    const ok = await fetch(`${origin}/webhook?hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=42`)
    expect([ok.status, await ok.text()]).toEqual([200, '42'])
    expect((await fetch(`${origin}/webhook?hub.mode=subscribe&hub.verify_token=no&hub.challenge=42`)).status).toBe(403)
    const body = payload(text('mid.A1', 'hi'))
    expect((await postMessaging(origin, body, APP_SECRET, 'sha256=' + '0'.repeat(64))).status).toBe(401)
    expect((await postMessaging(origin, body, 'another-secret')).status).toBe(401)
    expect((await fetch(`${origin}/webhook`, { method: 'POST', body: JSON.stringify(body) })).status).toBe(401)
    expect(await b.durability!.inbox.list({})).toEqual([])
  })

  it('answers 200 only after the inbox journaled every message; replies go out through the Send API', async () => {
    const gate = new AdmitGate(new MemoryDurability())
    const { origin, handled } = await bot(gate)
    const held = gate.hold()
    let answered = false
    const response = postMessaging(origin, payload(text('mid.B1', 'one'), text('mid.B2', 'two')), APP_SECRET).then((r) => {
      answered = true
      return r
    })
    await waitFor(() => held.waiting() === 1)
    expect(answered).toBe(false)
    held.release()
    expect((await response).status).toBe(200)
    await waitFor(() => api.sent.length === 2)
    expect(handled).toEqual(['one', 'two'])
    expect(api.sent.map((s) => [s.recipient, s.message])).toEqual([
      [USER, { text: 'echo: one' }],
      [USER, { text: 'echo: two' }],
    ])
    expect(api.requests.every((r) => r.headers.authorization === `Bearer ${ACCESS_TOKEN}`)).toBe(true)
  })

  it('a journal that refuses answers 500; the redelivered payload is handled once', async () => {
    const gate = new AdmitGate(new MemoryDurability())
    const { origin, handled, bot: b } = await bot(gate)
    const body = payload(text('mid.C1', 'once'))
    gate.failNext(1)
    expect((await postMessaging(origin, body, APP_SECRET)).status).toBe(500)
    expect((await postMessaging(origin, body, APP_SECRET)).status).toBe(200)
    expect((await postMessaging(origin, body, APP_SECRET)).status).toBe(200)
    await b.idle()
    expect(handled).toEqual(['once'])
    expect(api.texts()).toEqual(['echo: once'])
  })

  it('quick replies and postbacks are interactions; echoes, other accounts and other objects are acknowledged without an event', async () => {
    const { origin, handled, bot: b } = await bot()
    const events = [
      messageEvent(channel.accountId, USER, { mid: 'mid.D1', text: 'Red', quick_reply: { payload: 'RED' } }),
      {
        sender: { id: USER },
        recipient: { id: channel.accountId },
        timestamp: 1,
        postback: { mid: 'mid.D2', title: 'Start', payload: 'START' },
      },
      messageEvent(channel.accountId, USER, { mid: 'mid.D3', text: 'mine', is_echo: true }),
      messageEvent('999', USER, { mid: 'mid.D4', text: 'not mine' }),
    ]
    expect((await postMessaging(origin, payload(...events), APP_SECRET)).status).toBe(200)
    const other = messagingPayload(channel.object === 'page' ? 'instagram' : 'page', channel.accountId, [text('mid.D5', 'x')])
    expect((await postMessaging(origin, other, APP_SECRET)).status).toBe(200)
    await b.idle()
    expect(handled).toEqual(['pressed RED', 'pressed START'])
    expect((await b.durability!.inbox.list({})).map((r) => r.id).sort()).toEqual(
      [inboxRecordId(channel.name, USER, 'mid.D1'), inboxRecordId(channel.name, USER, 'mid.D2')].sort(),
    )
  })

  it('sends: a text split at the channel limit, quick replies, an attachment by URL; refuses what the channel cannot carry', async () => {
    const p = await provider()
    const b = await bots.start({ provider: p, durability: { ...FAST } })
    await b.send(USER, 'y'.repeat(channel.textLimit + 10))
    expect(api.texts().map((t) => t.length)).toEqual([channel.textLimit, 10])
    await p.send(USER, { text: 'Pick', buttons: [{ id: 'RED', title: 'Red' }] })
    await p.send(USER, { media: { type: 'image', url: 'https://example.com/a.jpg' } })
    expect(api.sent.slice(2).map((s) => s.message)).toEqual([
      { text: 'Pick', quick_replies: [{ content_type: 'text', title: 'Red', payload: 'RED' }] },
      { attachment: { type: 'image', payload: { url: 'https://example.com/a.jpg', is_reusable: false } } },
    ])
    const refused = (content: Parameters<MessengerProvider['send']>[1]) => p.send(USER, content).catch((e: Error) => e)
    const before = api.requests.length
    expect(await refused({ media: { type: 'image', url: 'https://example.com/a.jpg' }, caption: 'c' })).toBeInstanceOf(
      UnsupportedContentError,
    )
    expect(await refused({ text: 'p', buttons: Array.from({ length: 14 }, (_, i) => ({ id: `${i}`, title: `${i}` })) })).toBeInstanceOf(
      UnsupportedContentError,
    )
    expect(await refused({ text: 'p', buttons: [{ id: 'x', title: 'a title longer than twenty' }] })).toBeInstanceOf(PayloadTooLargeError)
    expect(api.requests.length).toBe(before)
    const upload = await refused({
      media: { type: 'document', buffer: Buffer.from('%PDF'), mimeType: 'application/pdf', fileName: 'a.pdf' },
    })
    if (channel.name === 'messenger') {
      expect(api.sent.at(-1)).toMatchObject({
        message: { attachment: { type: 'file' } },
        upload: { name: 'a.pdf', bytes: Buffer.from('%PDF') },
      })
    } else expect(upload).toBeInstanceOf(UnsupportedContentError)
  })

  const cases: [string, SendApiFailure, new (...args: never[]) => Error, Record<string, unknown>][] = [
    [
      'outside the messaging window',
      {
        status: 400,
        error: {
          message: 'This message is sent outside of allowed window.',
          code: 10,
          error_subcode: channel.name === 'messenger' ? 2018278 : 2534022,
        },
      },
      OutsideSessionWindowError,
      { retryable: false },
    ],
    [
      'no matching user',
      { status: 400, error: { message: '(#100) No matching user found', code: 100, error_subcode: 2018001 } },
      RecipientUnreachableError,
      {},
    ],
    [
      'a person not available',
      { status: 400, error: { message: "(#551) This person isn't available right now.", code: 551 } },
      RecipientUnreachableError,
      {},
    ],
    [
      'a rate limit',
      { status: 400, error: { message: '(#613) Calls to this api have exceeded the rate limit.', code: 613 }, retryAfter: '4' },
      RateLimitedError,
      { retryAfterMs: 4000 },
    ],
    [
      'an attachment over the size limit',
      { status: 400, error: { message: 'Attachment size exceeds allowable limit', code: 100, error_subcode: 2018109 } },
      PayloadTooLargeError,
      {},
    ],
    [
      'an attachment upload failure',
      { status: 400, error: { message: 'Upload attachment failure.', code: 100, error_subcode: 2018047 } },
      UnsupportedContentError,
      {},
    ],
    [
      'an expired token',
      { status: 400, error: { message: 'Error validating access token', code: 190 } },
      ChannelApiError,
      { code: 'CHANNEL_UNAUTHORIZED', retryable: false },
    ],
    [
      'a temporary failure',
      { status: 500, error: { message: 'An unexpected error has occurred. Please retry your request later.', code: 2 } },
      ChannelApiError,
      { code: 'CHANNEL_SERVER_ERROR', retryable: true },
    ],
    [
      'another rejection',
      { status: 400, error: { message: 'Invalid parameter', code: 100 } },
      ChannelApiError,
      { code: 'CHANNEL_REJECTED', retryable: false },
    ],
  ]
  it.each(cases)('a Send API failure: %s', async (_name, failure, type, fields) => {
    const p = await provider()
    api.failNext({ ...failure, error: { ...failure.error, message: `${failure.error.message} ?access_token=${ACCESS_TOKEN}` } })
    const error = await p.send(USER, 'hello').catch((e: Error) => e)
    expect(error).toBeInstanceOf(type)
    expect(error).toMatchObject(fields)
    expect((error as Error).message).not.toContain(ACCESS_TOKEN)
  })

  it('through a durable bot: a rate limit is honoured, a closed window is dead-lettered after one call', async () => {
    const p = await provider()
    const dead: { error: { code?: string } | null }[] = []
    const b = await bots.start({ provider: p, durability: { ...FAST, backend: new MemoryDurability() } }, (b) =>
      b.on('durability:dead', (info) => dead.push(info)),
    )
    api.failNext({ status: 400, error: { message: 'rate limit', code: 613 }, retryAfter: '0.2' })
    const started = Date.now()
    await b.send(USER, 'after the limit')
    expect(Date.now() - started).toBeGreaterThanOrEqual(200)
    api.failNext({ status: 400, error: { message: 'outside of allowed window', code: 10, error_subcode: 2018278 } })
    await expect(b.send(USER, 'late')).rejects.toThrow()
    await waitFor(() => dead.length === 1)
    expect(dead[0]!.error).toMatchObject({ code: 'OUTSIDE_SESSION_WINDOW' })
    expect(api.texts()).toEqual(['after the limit'])
    expect(api.requests).toHaveLength(3)
  })

  it('a crash after a photo was journaled: the restart replays it, downloads it from the CDN by its journaled URL, replies once', async () => {
    const photo = 'https://scontent.xx.fbcdn.net/v/t1.15752-9/photo.jpg?_nc_cat=1&oh=00_AfB&oe=6650'
    const cdn = await new FakeCdn(['fbcdn.net']).start()
    cdn.install()
    try {
      cdn.files.set(photo, { bytes: Buffer.from('the photo'), mime: 'image/jpeg' })
      api = await new FakeSendApi(ACCESS_TOKEN, channel.accountId).start()
      const store = new SQLiteStore({ file: join(dir, `${channel.name}.db`) })
      const backend = store.durability()
      const seen: (Buffer | undefined)[] = []
      const setup = (b: Bot) =>
        b.when(IMAGE, async (ctx: Context) => {
          seen.push(await loadMediaOf(ctx, { throwOnError: true }))
          await ctx.reply('thanks for the photo')
        })
      const a = crashable(backend).crashBefore('outbox.journal')
      const firstProvider = await provider()
      const first = await bots.start({ provider: firstProvider, store, durability: { ...FAST, backend: a, instanceId: 'm-1' } }, setup)
      const event = messageEvent(channel.accountId, USER, { mid: 'mid.IMG1', attachments: [{ type: 'image', payload: { url: photo } }] })
      expect((await postMessaging(firstProvider.webhookOrigin!, payload(event), APP_SECRET)).status).toBe(200)
      await a.whenCrashed()
      bots.abandon(first)
      await firstProvider.stop()
      const second = await bots.start({ provider: await provider(), store, durability: { ...FAST, backend, instanceId: 'm-1' } }, setup)
      const id = inboxRecordId(channel.name, USER, 'mid.IMG1')
      await waitFor(async () => (await second.durability!.inbox.get(id))?.state === 'done')
      expect(seen).toEqual([Buffer.from('the photo'), Buffer.from('the photo')])
      expect(api.texts()).toEqual(['thanks for the photo'])
      const record = await second.durability!.inbox.get(id)
      expect(record!.event).toMatchObject({ media: { type: 'image', stored: { provider: channel.name, v: 1, data: { url: photo } } } })
      expect(JSON.stringify(record)).not.toContain(ACCESS_TOKEN)
      expect(cdn.requested).toEqual([photo, photo])
    } finally {
      await cdn.stop()
    }
  })

  it('refuses missing options when constructed', () => {
    expect(() => channel.make('http://127.0.0.1:9', { accessToken: '' })).toThrow(ProviderConfigError)
    expect(() => channel.make('http://127.0.0.1:9', channel.name === 'messenger' ? { pageId: 'my-page' } : { accountId: 'me' })).toThrow(
      ProviderConfigError,
    )
  })
})
