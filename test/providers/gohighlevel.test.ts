/**
 * The HighLevel transport against a fake LeadConnector API on 127.0.0.1: the webhook's signature
 * (Ed25519, or the legacy RSA; 401 and nothing journaled without a valid one), 200 only once the
 * inbox journaled the message; sends, downloads and HighLevel's failures as the outbox's error
 * classes, none carrying the token; and the end-to-end run through a durable Bot.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { MemoryDurability } from '../../src/core/index.js'
import { TEXT } from '../../src/core/bot/matchers.js'
import {
  PayloadTooLargeError,
  RateLimitedError,
  RecipientUnreachableError,
  UnsupportedContentError,
} from '../../src/core/provider/provider-errors.js'
import type { IProvider } from '../../src/core/provider/provider.js'
import { GoHighLevelProvider } from '../../src/providers/gohighlevel/index.js'
import { ProviderConfigError } from '../../src/providers/shared/errors.js'
import { waitFor } from '../../test-utils/wait.js'
import { AdmitGate } from './admit-gate.js'
import { durableChannelSuite } from './durable-channel.js'
import { json } from './fixtures/fake-http-api.js'
import { CONTACT, FakeGoHighLevel, LOCATION, inboundMessage, postHighLevelWebhook, signingKeys } from './fixtures/fake-gohighlevel.js'
import { FAST, useBots } from './harness.js'

const TOKEN = 'pit-6f2a1c3e-location-token'
const KEYS = signingKeys('ed25519')
const bots = useBots()
let fake: FakeGoHighLevel
afterEach(async () => {
  await fake?.stop()
})

function highLevel(options: { token?: string; publicPem?: string; onError?: (e: unknown) => void } = {}): GoHighLevelProvider {
  return new GoHighLevelProvider({
    token: options.token ?? TOKEN,
    locationId: LOCATION,
    apiRoot: fake.origin,
    mediaRefOrigins: [fake.origin],
    webhook: { port: 0, host: '127.0.0.1', publicKey: options.publicPem ?? KEYS.publicPem },
    onError: options.onError ?? (() => undefined),
  })
}

async function highLevelBot(backend: MemoryDurability | AdmitGate = new MemoryDurability(), publicPem?: string) {
  fake = await new FakeGoHighLevel(TOKEN).start()
  const errors: unknown[] = []
  const provider = highLevel({ onError: (e) => errors.push(e), ...(publicPem ? { publicPem } : {}) })
  const handled: string[] = []
  const bot = await bots.start({ provider, durability: { ...FAST, backend } }, (b) =>
    b.when(TEXT, async (ctx) => {
      handled.push(ctx.message.text!)
      await ctx.reply(`echo: ${ctx.message.text}`)
    }),
  )
  return { bot, origin: provider.webhookOrigin!, handled, errors }
}

describe('GoHighLevelProvider: webhook', () => {
  it('refuses a missing signature, another key, a changed body or the other header with 401, and journals nothing', async () => {
    const { origin, bot } = await highLevelBot()
    const payload = inboundMessage('m1', 'hi')
    expect((await postHighLevelWebhook(origin, payload, KEYS.privateKey, {})).status).toBe(401)
    expect((await postHighLevelWebhook(origin, payload, signingKeys().privateKey)).status).toBe(401)
    const other = JSON.stringify(inboundMessage('m1', 'changed'))
    const { sign } = await import('node:crypto')
    const signatureOfOther = sign(null, Buffer.from(other), KEYS.privateKey).toString('base64')
    expect((await postHighLevelWebhook(origin, payload, KEYS.privateKey, { 'x-ghl-signature': signatureOfOther })).status).toBe(401)
    const rsa = signingKeys('rsa')
    expect((await postHighLevelWebhook(origin, payload, rsa.privateKey)).status).toBe(401)
    expect(await bot.durability!.inbox.list({})).toEqual([])
  })

  it('answers 200 only after the inbox journaled the message; a redelivery is handled once; other types and locations are ignored', async () => {
    const gate = new AdmitGate(new MemoryDurability())
    const { origin, handled, bot, errors } = await highLevelBot(gate)
    const held = gate.hold()
    let answered = false
    const response = postHighLevelWebhook(origin, inboundMessage('m2', 'one'), KEYS.privateKey).then((r) => {
      answered = true
      return r
    })
    await waitFor(() => held.waiting() === 1)
    // Nothing may answer while the journal write waits: give a wrong answer time to arrive.
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(answered).toBe(false)
    held.release()
    expect((await response).status).toBe(200)
    expect((await postHighLevelWebhook(origin, inboundMessage('m2', 'one'), KEYS.privateKey)).status).toBe(200)
    gate.failNext(1)
    expect((await postHighLevelWebhook(origin, inboundMessage('m3', 'two'), KEYS.privateKey)).status).toBe(500)
    expect(errors).toHaveLength(1)
    expect((await postHighLevelWebhook(origin, inboundMessage('m3', 'two'), KEYS.privateKey)).status).toBe(200)
    for (const extra of [{ messageType: 'Email' }, { locationId: 'another' }, { type: 'OutboundMessage', direction: 'outbound' }])
      expect((await postHighLevelWebhook(origin, inboundMessage('m4', 'x', extra), KEYS.privateKey)).status).toBe(200)
    await bot.idle()
    expect(handled).toEqual(['one', 'two'])
    expect(fake.sent.map((s) => s.body)).toEqual([
      { type: 'SMS', contactId: CONTACT, message: 'echo: one' },
      { type: 'SMS', contactId: CONTACT, message: 'echo: two' },
    ])
  })

  it('verifies the legacy RSA X-WH-Signature when given an RSA key', async () => {
    const rsa = signingKeys('rsa')
    const { origin, bot } = await highLevelBot(new MemoryDurability(), rsa.publicPem)
    expect((await postHighLevelWebhook(origin, inboundMessage('m5', 'legacy'), rsa.privateKey)).status).toBe(200)
    expect((await postHighLevelWebhook(origin, inboundMessage('m6', 'x'), KEYS.privateKey)).status).toBe(401)
    await bot.idle()
    expect(fake.texts()).toEqual(['echo: legacy'])
  })
})

describe('GoHighLevelProvider: sends and downloads', () => {
  const failure = (p: GoHighLevelProvider, content: Parameters<GoHighLevelProvider['send']>[1] = 'hello') =>
    p.send(CONTACT, content).then(
      () => new Error('sent'),
      (e: Error) => e,
    )

  it('text and attachments by URL', async () => {
    fake = await new FakeGoHighLevel(TOKEN).start()
    const p = highLevel()
    expect((await p.send(CONTACT, 'hi')).messageId).toMatch(/^t22c6/)
    await p.send(CONTACT, { media: { type: 'image', url: 'https://example.com/a.png' }, caption: 'a photo' })
    expect(fake.sent.map((s) => s.body)).toEqual([
      { type: 'SMS', contactId: CONTACT, message: 'hi' },
      { type: 'SMS', contactId: CONTACT, message: 'a photo', attachments: ['https://example.com/a.png'] },
    ])
  })

  it("HighLevel's failures as the outbox's classes, without the token; content it cannot carry is refused before any call", async () => {
    fake = await new FakeGoHighLevel(TOKEN).start()
    const p = highLevel()
    fake.dndNext()
    expect(await failure(p)).toBeInstanceOf(RecipientUnreachableError)
    fake.failNext(json(400, { statusCode: 400, message: 'Contact not found' }))
    expect(await failure(p)).toBeInstanceOf(RecipientUnreachableError)
    fake.rateLimitNext(7000)
    expect(await failure(p)).toMatchObject({ code: 'RATE_LIMITED', retryAfterMs: 7000 })
    fake.failNext(json(429, { statusCode: 429, message: 'Too Many Requests' }, { 'retry-after': '2' }))
    expect(await failure(p)).toMatchObject({ retryAfterMs: 2000 })
    fake.failNext(json(502, { statusCode: 502, message: 'Bad Gateway' }))
    expect(await failure(p)).toMatchObject({ code: 'CHANNEL_SERVER_ERROR', retryable: true })
    const wrong = await failure(highLevel({ token: 'wrong-token-of-some-length' }))
    expect(wrong).toMatchObject({ code: 'CHANNEL_UNAUTHORIZED', retryable: false })
    expect(wrong.message).not.toContain('wrong-token-of-some-length')
    const calls = fake.requests.length
    expect(await failure(p, 'x'.repeat(1601))).toBeInstanceOf(PayloadTooLargeError)
    expect(await failure(p, { text: 'pick', buttons: [{ id: 'a', title: 'A' }] })).toBeInstanceOf(UnsupportedContentError)
    expect(await failure(p, { media: { type: 'image', buffer: Buffer.from('x') } })).toBeInstanceOf(UnsupportedContentError)
    expect(fake.requests.length).toBe(calls)
    expect(await failure(p, 'x')).not.toBeInstanceOf(RateLimitedError)
  })

  it('refuses a missing token or a key that is not a public key', () => {
    const base = { token: 't', locationId: 'l', webhook: { port: 0, publicKey: KEYS.publicPem } }
    expect(() => new GoHighLevelProvider({ ...base, token: '' })).toThrow(ProviderConfigError)
    expect(() => new GoHighLevelProvider({ ...base, webhook: { port: 0, publicKey: 'not a key' } })).toThrow(ProviderConfigError)
  })
})

describe('GoHighLevelProvider', () => {
  durableChannelSuite(async () => {
    const double = await new FakeGoHighLevel(TOKEN).start()
    const origin = (p: IProvider) => (p as GoHighLevelProvider).webhookOrigin!
    const answered = async (response: Promise<Response>) => {
      const status = (await response).status
      if (status !== 200) throw new Error(`the webhook answered ${status}`)
    }
    return {
      channel: 'gohighlevel',
      chatId: CONTACT,
      provider: () =>
        new GoHighLevelProvider({
          token: TOKEN,
          locationId: LOCATION,
          apiRoot: double.origin,
          mediaRefOrigins: [double.origin],
          webhook: { port: 0, host: '127.0.0.1', publicKey: KEYS.publicPem },
          onError: () => undefined,
        }),
      inboundText: (p, id, text) => answered(postHighLevelWebhook(origin(p), inboundMessage(id, text), KEYS.privateKey)),
      inboundImage: (p, id, bytes) => {
        double.media.set(`${id}.png`, bytes)
        const payload = inboundMessage(id, '', { attachments: [`${double.origin}/media/${id}.png`] })
        return answered(postHighLevelWebhook(origin(p), payload, KEYS.privateKey))
      },
      eventId: (id) => id,
      sentTexts: () => double.texts(),
      sendTimes: () => double.requests.filter((r) => r.path === '/conversations/messages').map((r) => r.at),
      rateLimitNext: (seconds) => double.rateLimitNext(seconds * 1000),
      finalErrorNext: () => double.dndNext(),
      finalErrorCode: 'RECIPIENT_UNREACHABLE',
      secrets: [TOKEN],
      stop: () => double.stop(),
    }
  })
})
