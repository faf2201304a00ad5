/**
 * The Twilio transport against a fake Twilio REST API on 127.0.0.1 and real webhook requests:
 * `X-Twilio-Signature` (401 and nothing journaled on a bad one), 200 only once the inbox journaled
 * the message, a reply going out through the REST API (split at 1600 characters), WhatsApp quick
 * replies as interactions, media by URL, and Twilio's failures as the outbox's error classes: a
 * rate limit honoured, a closed WhatsApp window and an unreachable number dead-lettered.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { MemoryDurability } from '../../src/core/index.js'
import type { Context } from '../../src/core/bot/context.js'
import { INTERACTION, TEXT } from '../../src/core/bot/matchers.js'
import {
  OutsideSessionWindowError,
  PayloadTooLargeError,
  RateLimitedError,
  RecipientUnreachableError,
  UnsupportedContentError,
} from '../../src/core/provider/provider-errors.js'
import { TwilioProvider, type TwilioProviderOptions } from '../../src/providers/twilio/index.js'
import { ChannelApiError, ProviderConfigError } from '../../src/providers/shared/errors.js'
import { inboxRecordId } from '../../src/core/durability/outbox/keys.js'
import { waitFor } from '../../test-utils/wait.js'
import { AdmitGate } from './admit-gate.js'
import {
  ACCOUNT_SID,
  AUTH_TOKEN,
  FakeTwilio,
  TWILIO_NUMBER,
  incomingMessage,
  postTwilio,
  type TwilioFailure,
} from './fixtures/fake-twilio.js'
import { FAST, useBots } from './harness.js'

const PUBLIC_URL = 'https://bot.example.com/twilio'
const SMS_USER = '+5511999990000'
const bots = useBots()
let twilio: FakeTwilio
afterEach(async () => {
  await twilio?.stop()
  twilio = undefined!
})

async function provider(options: Partial<TwilioProviderOptions> = {}): Promise<TwilioProvider> {
  twilio ??= await new FakeTwilio().start()
  return new TwilioProvider({
    accountSid: ACCOUNT_SID,
    authToken: AUTH_TOKEN,
    from: TWILIO_NUMBER,
    webhook: { port: 0, host: '127.0.0.1', publicUrl: PUBLIC_URL },
    apiOrigin: twilio.origin,
    onError: () => undefined,
    ...options,
  })
}

async function twilioBot(backend: MemoryDurability | AdmitGate = new MemoryDurability()) {
  twilio = await new FakeTwilio().start()
  const p = await provider()
  const handled: string[] = []
  const bot = await bots.start({ provider: p, durability: { ...FAST, backend } }, (b) => {
    b.when(TEXT, async (ctx: Context) => {
      handled.push(ctx.message.text!)
      await ctx.reply(`echo: ${ctx.message.text}`)
    })
    b.when(INTERACTION, async (ctx: Context) => void handled.push(`pressed ${ctx.message.interaction!.id}`))
  })
  return { bot, origin: p.webhookOrigin!, handled }
}

describe('TwilioProvider: the incoming-message webhook', () => {
  it('refuses a missing, wrong or other-URL signature with 401, and journals nothing', async () => {
    const { origin, bot } = await twilioBot()
    const form = incomingMessage({ sid: 'SM100', from: SMS_USER, body: 'hi' })
    expect((await postTwilio(origin, PUBLIC_URL, form, 'AAAA')).status).toBe(401)
    expect((await postTwilio(origin, 'https://evil.example.com/twilio', form)).status).toBe(401)
    expect((await postTwilio(origin, PUBLIC_URL, { ...form, Body: 'changed' }, (await signed(form)).signature)).status).toBe(401)
    const unsigned = await fetch(`${origin}/twilio`, { method: 'POST', body: new URLSearchParams(form).toString() })
    expect(unsigned.status).toBe(401)
    expect(await bot.durability!.inbox.list({})).toEqual([])
  })

  it('answers 200 (empty TwiML) only after the inbox journaled the message; the reply goes out through the REST API', async () => {
    const gate = new AdmitGate(new MemoryDurability())
    const { origin, handled, bot } = await twilioBot(gate)
    const held = gate.hold()
    let answered = false
    const response = postTwilio(origin, PUBLIC_URL, incomingMessage({ sid: 'SM200', from: SMS_USER, body: 'hello' })).then((r) => {
      answered = true
      return r
    })
    await waitFor(() => held.waiting() === 1)
    expect(answered).toBe(false)
    held.release()
    const answer = await response
    expect([answer.status, answer.headers.get('content-type'), await answer.text()]).toEqual([
      200,
      'text/xml',
      '<?xml version="1.0" encoding="UTF-8"?><Response></Response>',
    ])
    await waitFor(() => twilio.sent.length === 1)
    expect(handled).toEqual(['hello'])
    expect(twilio.sent[0]).toMatchObject({ to: SMS_USER, from: TWILIO_NUMBER, body: 'echo: hello' })
    expect((await bot.durability!.inbox.list({})).map((r) => r.id)).toEqual([inboxRecordId('twilio', SMS_USER, 'SM200')])
  })

  it('a journal that refuses answers 500; the retried webhook is handled once', async () => {
    const gate = new AdmitGate(new MemoryDurability())
    const { origin, handled, bot } = await twilioBot(gate)
    const form = incomingMessage({ sid: 'SM300', from: SMS_USER, body: 'once' })
    gate.failNext(1)
    expect((await postTwilio(origin, PUBLIC_URL, form)).status).toBe(500)
    expect((await postTwilio(origin, PUBLIC_URL, form)).status).toBe(200)
    expect((await postTwilio(origin, PUBLIC_URL, form)).status).toBe(200)
    await bot.idle()
    expect(handled).toEqual(['once'])
    expect(twilio.bodies()).toEqual(['echo: once'])
    expect(bot.durability!.metrics().inboundDuplicates).toBe(1)
  })

  it('WhatsApp: the chat is whatsapp:+…, answered from the WhatsApp sender; a quick reply is an interaction', async () => {
    const { origin, handled, bot } = await twilioBot()
    const wa = 'whatsapp:+5511988887777'
    await postTwilio(origin, PUBLIC_URL, incomingMessage({ sid: 'SM400', from: wa, body: 'oi', ProfileName: 'Ana', WaId: '5511988887777' }))
    await postTwilio(
      origin,
      PUBLIC_URL,
      incomingMessage({ sid: 'SM401', from: wa, body: 'Yes', ButtonPayload: 'confirm', ButtonText: 'Yes' }),
    )
    await bot.idle()
    expect(handled).toEqual(['oi', 'pressed confirm'])
    expect(twilio.sent.map((s) => [s.to, s.from])).toEqual([[wa, `whatsapp:${TWILIO_NUMBER}`]])
  })

  it('another account’s message and other paths are not journaled', async () => {
    const { origin, bot } = await twilioBot()
    const other = incomingMessage({ sid: 'SM500', from: SMS_USER, body: 'x', AccountSid: 'AC' + 'f'.repeat(32) })
    expect((await postTwilio(origin, PUBLIC_URL, other)).status).toBe(200)
    expect((await fetch(`${origin}/elsewhere`, { method: 'POST' })).status).toBe(404)
    expect(await bot.durability!.inbox.list({})).toEqual([])
  })
})

describe('TwilioProvider: sends', () => {
  it('a body, media by URL with its caption, a 2000-character text split by the bot at 1600', async () => {
    const p = await provider()
    expect((await p.send(SMS_USER, 'hi')).messageId).toMatch(/^SM\d{32}$/)
    await p.send(SMS_USER, { media: { type: 'image', url: 'https://example.com/a.jpg' }, caption: 'a photo' })
    expect(twilio.sent.map((s) => [s.body, s.mediaUrl])).toEqual([
      ['hi', []],
      ['a photo', ['https://example.com/a.jpg']],
    ])
    const bot = await bots.start({ provider: p, durability: { ...FAST } })
    await bot.send(SMS_USER, 'y'.repeat(2000))
    expect(
      twilio
        .bodies()
        .slice(2)
        .map((b) => b!.length),
    ).toEqual([1600, 400])
  })

  it('content Twilio cannot carry is refused before any call', async () => {
    const p = await provider()
    const refused = (content: Parameters<TwilioProvider['send']>[1]) => p.send(SMS_USER, content).catch((e: Error) => e)
    expect(await refused({ text: 'pick', buttons: [{ id: 'a', title: 'A' }] })).toBeInstanceOf(UnsupportedContentError)
    expect(await refused({ media: { type: 'document', buffer: Buffer.from('x') } })).toBeInstanceOf(UnsupportedContentError)
    expect(await refused('z'.repeat(1601))).toBeInstanceOf(PayloadTooLargeError)
    expect(await refused({})).toBeInstanceOf(UnsupportedContentError)
    expect(twilio.requests).toEqual([])
  })

  const cases: [string, TwilioFailure, new (...args: never[]) => Error, Record<string, unknown>][] = [
    [
      'the WhatsApp window is closed (63016)',
      { status: 400, code: 63016, message: 'Failed to send freeform message because you are outside the allowed window.' },
      OutsideSessionWindowError,
      { retryable: false },
    ],
    [
      'HTTP 429 with Retry-After',
      { status: 429, code: 20429, message: 'Too Many Requests', retryAfter: '3' },
      RateLimitedError,
      { retryAfterMs: 3000 },
    ],
    [
      'an invalid number (21211)',
      { status: 400, code: 21211, message: "The 'To' number +1 is not a valid phone number." },
      RecipientUnreachableError,
      { retryable: false },
    ],
    [
      'an unsubscribed recipient (21610)',
      { status: 400, code: 21610, message: 'Attempt to send to unsubscribed recipient' },
      RecipientUnreachableError,
      { retryable: false },
    ],
    [
      'a body over 1600 (21617)',
      { status: 400, code: 21617, message: 'The concatenated message body exceeds the 1600 character limit.' },
      PayloadTooLargeError,
      { retryable: false },
    ],
    [
      'a bad media URL (21620)',
      { status: 400, code: 21620, message: 'Invalid media URL(s)' },
      UnsupportedContentError,
      { retryable: false },
    ],
    ['a server error', { status: 503, message: 'Service Unavailable' }, ChannelApiError, { code: 'CHANNEL_SERVER_ERROR', retryable: true }],
    [
      'another client error',
      { status: 400, code: 21606, message: "The 'From' phone number provided is not a valid message-capable Twilio phone number." },
      ChannelApiError,
      { code: 'CHANNEL_REJECTED', retryable: false, channelCode: 21606 },
    ],
  ]
  it.each(cases)('%s', async (_name, failure, type, fields) => {
    const p = await provider()
    twilio.failNext(failure)
    const error = await p.send(SMS_USER, 'hello').catch((e: Error) => e)
    expect(error).toBeInstanceOf(type)
    expect(error).toMatchObject(fields)
    expect((error as Error).message).not.toContain(AUTH_TOKEN)
  })

  it('wrong credentials are final and never quoted; an unreachable API is retried', async () => {
    const wrong = await (await provider({ authToken: 'a-wrong-token-value' })).send(SMS_USER, 'x').catch((e: Error) => e)
    expect(wrong).toMatchObject({ code: 'CHANNEL_UNAUTHORIZED', retryable: false })
    expect((wrong as Error).message).not.toContain('a-wrong-token-value')
    const p = await provider()
    await twilio.stop()
    expect(await p.send(SMS_USER, 'x').catch((e: Error) => e)).toMatchObject({ code: 'CHANNEL_NETWORK', retryable: true })
  })

  it('through a durable bot: a rate limit is honoured, a closed window is dead-lettered after one call', async () => {
    const p = await provider()
    const dead: { error: { code?: string } | null }[] = []
    const bot = await bots.start({ provider: p, durability: { ...FAST, backend: new MemoryDurability() } }, (b) =>
      b.on('durability:dead', (info) => dead.push(info)),
    )
    twilio.failNext({ status: 429, code: 20429, message: 'Too Many Requests', retryAfter: '0.2' })
    const started = Date.now()
    await bot.send(SMS_USER, 'after the limit')
    expect(Date.now() - started).toBeGreaterThanOrEqual(200)
    expect(twilio.bodies()).toEqual(['after the limit'])
    twilio.failNext({ status: 400, code: 63016, message: 'outside the allowed window' })
    await expect(bot.send('whatsapp:+5511988887777', 'late')).rejects.toThrow()
    await waitFor(() => dead.length === 1)
    expect(dead[0]!.error).toMatchObject({ code: 'OUTSIDE_SESSION_WINDOW' })
    expect(twilio.requests.filter((r) => r.method === 'POST')).toHaveLength(3)
  })

  it('refuses incomplete options when constructed', () => {
    const base = { accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN, from: TWILIO_NUMBER, webhook: { port: 0, publicUrl: PUBLIC_URL } }
    expect(() => new TwilioProvider({ ...base, accountSid: 'AC1' })).toThrow(ProviderConfigError)
    expect(() => new TwilioProvider({ ...base, messagingServiceSid: 'MG1' })).toThrow(ProviderConfigError)
    expect(() => new TwilioProvider({ ...base, webhook: { port: 0, publicUrl: '/twilio' } })).toThrow(ProviderConfigError)
  })
})

/** A form and the signature Twilio gives it for the public URL. */
async function signed(form: Record<string, string>) {
  const { signTwilio } = await import('./fixtures/fake-twilio.js')
  return { form, signature: signTwilio(AUTH_TOKEN, PUBLIC_URL, form) }
}
