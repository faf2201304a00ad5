/**
 * The Evolution API transport against a fake Evolution server on 127.0.0.1: the webhook's signed
 * token (401 and nothing journaled without a valid one), 200 only once the inbox journaled the
 * message, redeliveries handled once; sends, downloads and Evolution's failures as the outbox's
 * error classes, none carrying a secret; and the end-to-end run through a durable Bot.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { MemoryDurability } from '../../src/core/index.js'
import { INTERACTION, TEXT } from '../../src/core/bot/matchers.js'
import {
  PayloadTooLargeError,
  RateLimitedError,
  RecipientUnreachableError,
  UnsupportedContentError,
} from '../../src/core/provider/provider-errors.js'
import type { IProvider } from '../../src/core/provider/provider.js'
import { EvolutionProvider, webhookTokenOf } from '../../src/providers/evolution/index.js'
import { ProviderConfigError } from '../../src/providers/shared/errors.js'
import { waitFor } from '../../test-utils/wait.js'
import { AdmitGate } from './admit-gate.js'
import { durableChannelSuite } from './durable-channel.js'
import { FakeEvolution, INSTANCE, JID, imageData, postEvolutionWebhook, textData, upsertOf } from './fixtures/fake-evolution.js'
import { json } from './fixtures/fake-http-api.js'
import { FAST, useBots } from './harness.js'

const API_KEY = 'evolution-instance-key-0123'
const JWT_KEY = 'evolution-webhook-jwt-key-4567'
const bots = useBots()
let fake: FakeEvolution
afterEach(async () => {
  await fake?.stop()
})

function evolution(options: { apiKey?: string; onError?: (e: unknown) => void } = {}): EvolutionProvider {
  return new EvolutionProvider({
    apiUrl: fake.origin,
    instance: INSTANCE,
    apiKey: options.apiKey ?? API_KEY,
    webhook: { port: 0, host: '127.0.0.1', jwtKey: JWT_KEY },
    onError: options.onError ?? (() => undefined),
  })
}

async function evolutionBot(backend: MemoryDurability | AdmitGate = new MemoryDurability()) {
  fake = await new FakeEvolution(API_KEY).start()
  const errors: unknown[] = []
  const provider = evolution({ onError: (e) => errors.push(e) })
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

describe('EvolutionProvider: webhook', () => {
  it('refuses a missing, wrong-key, expired or tampered token with 401 and journals nothing', async () => {
    const { origin, bot } = await evolutionBot()
    const payload = upsertOf(textData('3EB0A1', 'hi'))
    const now = Date.now()
    const [head, , signature] = webhookTokenOf(JWT_KEY, now).split('.')
    const forged = Buffer.from(JSON.stringify({ iat: 1, exp: 9_999_999_999, app: 'evolution' })).toString('base64url')
    for (const authorization of [
      '',
      `Bearer ${webhookTokenOf('another-key-of-sixteen', now)}`,
      `Bearer ${webhookTokenOf(JWT_KEY, now - 3_600_000)}`,
      `Bearer ${head}.${forged}.${signature}`,
      JWT_KEY,
    ]) {
      expect((await postEvolutionWebhook(origin, payload, JWT_KEY, authorization)).status).toBe(401)
    }
    expect(await bot.durability!.inbox.list({})).toEqual([])
  })

  it('answers 200 only after the inbox journaled the message; the reply goes out through sendText', async () => {
    const gate = new AdmitGate(new MemoryDurability())
    const { origin, handled } = await evolutionBot(gate)
    const held = gate.hold()
    let answered = false
    const response = postEvolutionWebhook(origin, upsertOf(textData('3EB0B1', 'one')), JWT_KEY).then((r) => {
      answered = true
      return r
    })
    await waitFor(() => held.waiting() === 1)
    // Nothing may answer while the journal write waits: give a wrong answer time to arrive.
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(answered).toBe(false)
    held.release()
    expect((await response).status).toBe(200)
    await waitFor(() => fake.sent.length === 1)
    expect(handled).toEqual(['one'])
    expect(fake.sent[0]).toMatchObject({ method: 'sendText', body: { number: JID, text: 'echo: one' } })
    expect(fake.requests.every((r) => r.headers.apikey === API_KEY)).toBe(true)
  })

  it('a redelivered webhook is handled once; a journal that refuses answers 500 and the retry is handled', async () => {
    const gate = new AdmitGate(new MemoryDurability())
    const { origin, handled, bot, errors } = await evolutionBot(gate)
    const payload = upsertOf(textData('3EB0C1', 'once'))
    expect((await postEvolutionWebhook(origin, payload, JWT_KEY)).status).toBe(200)
    expect((await postEvolutionWebhook(origin, payload, JWT_KEY)).status).toBe(200)
    gate.failNext(1)
    const next = upsertOf(textData('3EB0C2', 'after the outage'))
    expect((await postEvolutionWebhook(origin, next, JWT_KEY)).status).toBe(500)
    expect(errors).toHaveLength(1)
    expect((await postEvolutionWebhook(origin, next, JWT_KEY)).status).toBe(200)
    await bot.idle()
    expect(handled).toEqual(['once', 'after the outage'])
    expect(bot.durability!.metrics().inboundDuplicates).toBe(1)
  })

  it('own messages, other instances and other events are acknowledged without an event; button replies are interactions', async () => {
    const { origin, handled, bot } = await evolutionBot()
    const own = { ...textData('3EB0D1', 'sent by the bot'), key: { remoteJid: JID, fromMe: true, id: '3EB0D1' } }
    expect((await postEvolutionWebhook(origin, upsertOf(own), JWT_KEY)).status).toBe(200)
    expect((await postEvolutionWebhook(origin, upsertOf(textData('3EB0D2', 'x'), 'other-instance'), JWT_KEY)).status).toBe(200)
    const update = { event: 'messages.update', instance: INSTANCE, data: { keyId: '3EB0D1', status: 'READ' } }
    expect((await postEvolutionWebhook(origin, update, JWT_KEY)).status).toBe(200)
    const button = {
      key: { remoteJid: JID, fromMe: false, id: '3EB0D3' },
      message: { buttonsResponseMessage: { selectedButtonId: 'yes' } },
    }
    expect((await postEvolutionWebhook(origin, upsertOf(button), JWT_KEY)).status).toBe(200)
    await bot.idle()
    expect(handled).toEqual(['pressed yes'])
    expect((await bot.durability!.inbox.list({})).length).toBe(1)
  })
})

describe('EvolutionProvider: sends and downloads', () => {
  const failure = (p: EvolutionProvider, content: Parameters<EvolutionProvider['send']>[1] = 'hello') =>
    p.send(JID, content).then(
      () => new Error('sent'),
      (e: Error) => e,
    )

  it('text, media by URL and from bytes, audio, reply buttons', async () => {
    fake = await new FakeEvolution(API_KEY).start()
    const p = evolution()
    expect((await p.send(JID, 'hi')).messageId).toMatch(/^BAE5/)
    await p.send(JID, { media: { type: 'image', url: 'https://example.com/a.jpg', mimeType: 'image/jpeg' }, caption: 'a photo' })
    await p.send(JID, { media: { type: 'document', buffer: Buffer.from('%PDF'), fileName: 'invoice.pdf' }, caption: 'invoice' })
    await p.send(JID, { media: { type: 'audio', url: 'https://example.com/a.ogg' } })
    await p.send(JID, { text: 'Confirm?', buttons: [{ id: 'yes', title: 'Yes' }] })
    expect(fake.sent.map((s) => [s.method, s.body])).toEqual([
      ['sendText', { number: JID, text: 'hi' }],
      ['sendMedia', { number: JID, mediatype: 'image', media: 'https://example.com/a.jpg', mimetype: 'image/jpeg', caption: 'a photo' }],
      [
        'sendMedia',
        { number: JID, mediatype: 'document', media: Buffer.from('%PDF').toString('base64'), caption: 'invoice', fileName: 'invoice.pdf' },
      ],
      ['sendWhatsAppAudio', { number: JID, audio: 'https://example.com/a.ogg' }],
      ['sendButtons', { number: JID, title: 'Confirm?', buttons: [{ type: 'reply', displayText: 'Yes', id: 'yes' }] }],
    ])
  })

  it("Evolution's failures as the outbox's classes, without a secret; content it cannot carry is refused before any call", async () => {
    fake = await new FakeEvolution(API_KEY).start()
    const p = evolution()
    fake.notOnWhatsAppNext()
    expect(await failure(p)).toBeInstanceOf(RecipientUnreachableError)
    fake.failNext(json(429, { status: 429, error: 'Too Many Requests' }, { 'retry-after': '3' }))
    expect(await failure(p)).toMatchObject({ retryAfterMs: 3000 })
    fake.failNext(json(400, { status: 400, error: 'Bad Request', response: { message: ['Connection Closed'] } }))
    expect(await failure(p)).toMatchObject({ code: 'CHANNEL_SERVER_ERROR', retryable: true })
    fake.failNext(json(500, { status: 500, error: 'Internal Server Error', response: { message: 'boom' } }))
    expect(await failure(p)).toMatchObject({ code: 'CHANNEL_SERVER_ERROR', retryable: true })
    fake.failNext(json(400, { status: 400, error: 'Bad Request', response: { message: ['text is required'] } }))
    expect(await failure(p)).toMatchObject({ code: 'CHANNEL_REJECTED', retryable: false })
    const wrong = await failure(evolution({ apiKey: 'wrong-key-of-some-length' }))
    expect(wrong).toMatchObject({ code: 'CHANNEL_UNAUTHORIZED', retryable: false })
    expect(wrong.message).not.toContain('wrong-key-of-some-length')
    const calls = fake.requests.length
    expect(await failure(p, { text: 'x'.repeat(4097) })).toBeInstanceOf(PayloadTooLargeError)
    expect(await failure(p, { text: 'pick', buttons: [1, 2, 3, 4].map((n) => ({ id: `${n}`, title: `${n}` })) })).toBeInstanceOf(
      UnsupportedContentError,
    )
    expect(await failure(p, {})).toBeInstanceOf(UnsupportedContentError)
    expect(fake.requests.length).toBe(calls)
    await fake.stop()
    const down = await failure(p)
    expect(down).toMatchObject({ code: 'CHANNEL_NETWORK', retryable: true })
    expect(down).not.toBeInstanceOf(RateLimitedError)
  })

  it('downloads inline base64 without a call, else by message key; a journaled reference rebuilds the key only', async () => {
    fake = await new FakeEvolution(API_KEY).start()
    const p = evolution()
    const key = { remoteJid: JID, fromMe: false, id: '3EB0E1' }
    expect(await p.download({ type: 'image', token: { key, base64: Buffer.from('inline').toString('base64') } })).toEqual(
      Buffer.from('inline'),
    )
    expect(fake.requests).toEqual([])
    fake.media.set('3EB0E1', Buffer.from('fetched').toString('base64'))
    expect(await p.download({ type: 'image', token: { key } })).toEqual(Buffer.from('fetched'))
    const stored = p.serializeMediaRef({ type: 'image', token: { key, base64: 'aW5saW5l' } })!
    expect(JSON.stringify(stored)).not.toContain('aW5saW5l')
    expect(p.rehydrateMediaRef(JSON.parse(JSON.stringify(stored)), { type: 'image', token: undefined }).token).toEqual({ key })
    expect(await p.download({ type: 'image', token: { key: { ...key, id: 'missing' } } }).catch((e: Error) => e)).toMatchObject({
      code: 'CHANNEL_REJECTED',
    })
  })

  it('refuses missing or weak options when constructed', () => {
    const base = { apiUrl: 'http://127.0.0.1:1', instance: 'i', apiKey: 'k', webhook: { port: 0, jwtKey: JWT_KEY } }
    expect(() => new EvolutionProvider({ ...base, apiKey: '' })).toThrow(ProviderConfigError)
    expect(() => new EvolutionProvider({ ...base, webhook: { port: 0, jwtKey: 'short' } })).toThrow(ProviderConfigError)
    expect(() => new EvolutionProvider({ ...base, apiUrl: 'evolution.example.com' })).toThrow(ProviderConfigError)
  })
})

describe('EvolutionProvider', () => {
  durableChannelSuite(async () => {
    const double = await new FakeEvolution(API_KEY).start()
    const origin = (p: IProvider) => (p as EvolutionProvider).webhookOrigin!
    const answered = async (response: Promise<Response>) => {
      const status = (await response).status
      if (status !== 200) throw new Error(`the webhook answered ${status}`)
    }
    return {
      channel: 'evolution',
      chatId: JID,
      provider: () =>
        new EvolutionProvider({
          apiUrl: double.origin,
          instance: INSTANCE,
          apiKey: API_KEY,
          webhook: { port: 0, host: '127.0.0.1', jwtKey: JWT_KEY },
          onError: () => undefined,
        }),
      inboundText: (p, id, text) => answered(postEvolutionWebhook(origin(p), upsertOf(textData(id, text)), JWT_KEY)),
      inboundImage: (p, id, bytes) => {
        double.media.set(id, bytes.toString('base64'))
        return answered(postEvolutionWebhook(origin(p), upsertOf(imageData(id)), JWT_KEY))
      },
      eventId: (id) => id,
      sentTexts: () => double.texts(),
      sendTimes: () => double.requests.filter((r) => r.path.startsWith('/message/')).map((r) => r.at),
      rateLimitNext: (seconds) =>
        double.failNext(json(429, { status: 429, error: 'Too Many Requests' }, { 'retry-after': String(seconds) })),
      finalErrorNext: () => double.notOnWhatsAppNext(),
      finalErrorCode: 'RECIPIENT_UNREACHABLE',
      secrets: [API_KEY, JWT_KEY],
      stop: () => double.stop(),
    }
  })
})
