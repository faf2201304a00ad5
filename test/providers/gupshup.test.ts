/**
 * The Gupshup transport against a fake Gupshup API on 127.0.0.1: the callback's secret (401 and
 * nothing journaled without it), 200 only once the inbox journaled the message; sends, downloads
 * and Gupshup's failures as the outbox's error classes, none carrying a secret; and the
 * end-to-end run through a durable Bot.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { MemoryDurability } from '../../src/core/index.js'
import { INTERACTION, TEXT } from '../../src/core/bot/matchers.js'
import { PayloadTooLargeError, RecipientUnreachableError, UnsupportedContentError } from '../../src/core/provider/provider-errors.js'
import type { IProvider } from '../../src/core/provider/provider.js'
import { GupshupProvider } from '../../src/providers/gupshup/index.js'
import { ProviderConfigError } from '../../src/providers/shared/errors.js'
import { waitFor } from '../../test-utils/wait.js'
import { AdmitGate } from './admit-gate.js'
import { durableChannelSuite } from './durable-channel.js'
import { json } from './fixtures/fake-http-api.js'
import { APP, FakeGupshup, SOURCE, USER, callbackOf, postGupshupCallback } from './fixtures/fake-gupshup.js'
import { FAST, useBots } from './harness.js'

const API_KEY = 'gupshup-api-key-0123456789'
const SECRET = 'gupshup-callback-secret-0123'
const bots = useBots()
let fake: FakeGupshup
afterEach(async () => {
  await fake?.stop()
})

function gupshup(options: { apiKey?: string; onError?: (e: unknown) => void } = {}): GupshupProvider {
  return new GupshupProvider({
    apiKey: options.apiKey ?? API_KEY,
    app: APP,
    source: SOURCE,
    apiRoot: fake.origin,
    mediaRefOrigins: [fake.origin],
    webhook: { port: 0, host: '127.0.0.1', secret: SECRET },
    onError: options.onError ?? (() => undefined),
  })
}
const text = (id: string, body: string) => callbackOf({ id, type: 'text', payload: { text: body } })

async function gupshupBot(backend: MemoryDurability | AdmitGate = new MemoryDurability()) {
  fake = await new FakeGupshup(API_KEY).start()
  const errors: unknown[] = []
  const provider = gupshup({ onError: (e) => errors.push(e) })
  const handled: string[] = []
  const bot = await bots.start({ provider, durability: { ...FAST, backend } }, (b) => {
    b.when(TEXT, async (ctx) => {
      handled.push(ctx.message.text!)
      await ctx.reply(`echo: ${ctx.message.text}`)
    })
    b.when(INTERACTION, async (ctx) => void handled.push(`pressed ${ctx.message.interaction!.id}`))
  })
  return { bot, origin: provider.webhookOrigin!, handled, errors }
}

describe('GupshupProvider: callbacks', () => {
  it('refuses a missing or wrong secret with 401 and journals nothing', async () => {
    const { origin, bot } = await gupshupBot()
    for (const secret of [undefined, '', 'gupshup-callback-secret-0124']) {
      expect((await postGupshupCallback(origin, text('ABEG1', 'hi'), secret)).status).toBe(401)
    }
    expect(await bot.durability!.inbox.list({})).toEqual([])
  })

  it('answers 200 only after the inbox journaled the message; a redelivery and other callbacks are handled once or not at all', async () => {
    const gate = new AdmitGate(new MemoryDurability())
    const { origin, handled, bot, errors } = await gupshupBot(gate)
    const held = gate.hold()
    let answered = false
    const response = postGupshupCallback(origin, text('ABEG2', 'one'), SECRET).then((r) => {
      answered = true
      return r
    })
    await waitFor(() => held.waiting() === 1)
    // Nothing may answer while the journal write waits: give a wrong answer time to arrive.
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(answered).toBe(false)
    held.release()
    expect((await response).status).toBe(200)
    expect((await postGupshupCallback(origin, text('ABEG2', 'one'), SECRET)).status).toBe(200)
    gate.failNext(1)
    expect((await postGupshupCallback(origin, text('ABEG3', 'two'), SECRET)).status).toBe(500)
    expect(errors).toHaveLength(1)
    expect((await postGupshupCallback(origin, text('ABEG3', 'two'), SECRET)).status).toBe(200)
    const report = { app: APP, timestamp: 1, version: 2, type: 'message-event', payload: { id: 'x', type: 'delivered' } }
    expect((await postGupshupCallback(origin, report, SECRET)).status).toBe(200)
    expect(
      (await postGupshupCallback(origin, callbackOf({ id: 'ABEG4', type: 'text', payload: { text: 'x' } }, 'OtherApp'), SECRET)).status,
    ).toBe(200)
    const button = callbackOf({
      id: 'ABEG5',
      type: 'button_reply',
      payload: { title: 'Yes', id: 'qr1', reply: 'Yes 1', postbackText: 'yes' },
    })
    expect((await postGupshupCallback(origin, button, SECRET)).status).toBe(200)
    await bot.idle()
    expect(handled).toEqual(['one', 'two', 'pressed yes'])
    expect(fake.sent.map((s) => [s.destination, s.message])).toEqual([
      [USER, { type: 'text', text: 'echo: one' }],
      [USER, { type: 'text', text: 'echo: two' }],
    ])
  })
})

describe('GupshupProvider: sends and downloads', () => {
  const failure = (p: GupshupProvider, content: Parameters<GupshupProvider['send']>[1] = 'hello') =>
    p.send(USER, content).then(
      () => new Error('sent'),
      (e: Error) => e,
    )

  it('text, media by URL with caption, a file, quick replies', async () => {
    fake = await new FakeGupshup(API_KEY).start()
    const p = gupshup()
    expect((await p.send(USER, 'hi')).messageId).toMatch(/^ee4a68a0-/)
    await p.send(USER, { media: { type: 'image', url: 'https://example.com/a.jpg' }, caption: 'a photo' })
    await p.send(USER, { media: { type: 'document', url: 'https://example.com/i.pdf', fileName: 'invoice.pdf' } })
    await p.send(USER, { text: 'Confirm?', buttons: [{ id: 'yes', title: 'Yes' }] })
    expect(fake.sent.map((s) => s.message)).toEqual([
      { type: 'text', text: 'hi' },
      { type: 'image', originalUrl: 'https://example.com/a.jpg', previewUrl: 'https://example.com/a.jpg', caption: 'a photo' },
      { type: 'file', url: 'https://example.com/i.pdf', filename: 'invoice.pdf' },
      { type: 'quick_reply', content: { type: 'text', text: 'Confirm?' }, options: [{ type: 'text', title: 'Yes', postbackText: 'yes' }] },
    ])
  })

  it("Gupshup's failures as the outbox's classes, without a secret; content it cannot carry is refused before any call", async () => {
    fake = await new FakeGupshup(API_KEY).start()
    const p = gupshup()
    fake.invalidDestinationNext()
    expect(await failure(p)).toBeInstanceOf(RecipientUnreachableError)
    fake.failNext(json(429, { status: 'error', message: 'Too Many Requests' }, { 'retry-after': '2' }))
    expect(await failure(p)).toMatchObject({ code: 'RATE_LIMITED', retryAfterMs: 2000 })
    fake.failNext(json(503, { status: 'error', message: 'Service Unavailable' }))
    expect(await failure(p)).toMatchObject({ code: 'CHANNEL_SERVER_ERROR', retryable: true })
    const wrong = await failure(gupshup({ apiKey: 'wrong-key-of-some-length' }))
    expect(wrong).toMatchObject({ code: 'CHANNEL_UNAUTHORIZED', retryable: false })
    expect(wrong.message).not.toContain('wrong-key-of-some-length')
    const calls = fake.requests.length
    expect(await failure(p, 'x'.repeat(4097))).toBeInstanceOf(PayloadTooLargeError)
    expect(await failure(p, { media: { type: 'image', buffer: Buffer.from('x') } })).toBeInstanceOf(UnsupportedContentError)
    expect(await failure(p, { text: 'pick', buttons: [{ id: 'b', title: 'a title longer than twenty' }] })).toBeInstanceOf(
      PayloadTooLargeError,
    )
    expect(fake.requests.length).toBe(calls)
  })

  it('downloads the hosted URL; a journaled reference keeps the URL only where the policy accepts it', async () => {
    fake = await new FakeGupshup(API_KEY).start()
    const p = gupshup()
    fake.media.set('a.jpg', Buffer.from('the photo'))
    const stored = p.serializeMediaRef({ type: 'image', token: { url: `${fake.origin}/media/a.jpg` } })!
    const rebuilt = p.rehydrateMediaRef(JSON.parse(JSON.stringify(stored)), { type: 'image', token: undefined })
    expect(await p.download(rebuilt)).toEqual(Buffer.from('the photo'))
    expect(p.serializeMediaRef({ type: 'image', token: { url: 'http://127.0.0.1:9/media/a.jpg' } })).toBeUndefined()
    expect(await p.download({ type: 'image', token: { url: `${fake.origin}/media/gone.jpg` } }).catch((e: Error) => e)).toMatchObject({
      code: 'MEDIA_DOWNLOAD_FAILED',
    })
  })

  it('refuses missing or weak options when constructed', () => {
    const base = { apiKey: 'k', app: 'a', source: '1', webhook: { port: 0, secret: SECRET } }
    expect(() => new GupshupProvider({ ...base, apiKey: '' })).toThrow(ProviderConfigError)
    expect(() => new GupshupProvider({ ...base, webhook: { port: 0, secret: 'short' } })).toThrow(ProviderConfigError)
  })
})

describe('GupshupProvider', () => {
  durableChannelSuite(async () => {
    const double = await new FakeGupshup(API_KEY).start()
    const origin = (p: IProvider) => (p as GupshupProvider).webhookOrigin!
    const answered = async (response: Promise<Response>) => {
      const status = (await response).status
      if (status !== 200) throw new Error(`the callback answered ${status}`)
    }
    return {
      channel: 'gupshup',
      chatId: USER,
      provider: () =>
        new GupshupProvider({
          apiKey: API_KEY,
          app: APP,
          source: SOURCE,
          apiRoot: double.origin,
          mediaRefOrigins: [double.origin],
          webhook: { port: 0, host: '127.0.0.1', secret: SECRET },
          onError: () => undefined,
        }),
      inboundText: (p, id, body) =>
        answered(postGupshupCallback(origin(p), callbackOf({ id, type: 'text', payload: { text: body } }), SECRET)),
      inboundImage: (p, id, bytes) => {
        double.media.set(`${id}.jpg`, bytes)
        const payload = callbackOf({
          id,
          type: 'image',
          payload: { url: `${double.origin}/media/${id}.jpg`, contentType: 'image/jpeg', urlExpiry: 1580832766370 },
        })
        return answered(postGupshupCallback(origin(p), payload, SECRET))
      },
      eventId: (id) => id,
      sentTexts: () => double.texts(),
      sendTimes: () => double.requests.filter((r) => r.path === '/wa/api/v1/msg').map((r) => r.at),
      rateLimitNext: (seconds) =>
        double.failNext(json(429, { status: 'error', message: 'Too Many Requests' }, { 'retry-after': String(seconds) })),
      finalErrorNext: () => double.invalidDestinationNext(),
      finalErrorCode: 'RECIPIENT_UNREACHABLE',
      secrets: [API_KEY, SECRET],
      stop: () => double.stop(),
    }
  })
})
