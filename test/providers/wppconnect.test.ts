/**
 * The WPPConnect Server transport against a fake server on 127.0.0.1: the webhook's secret (401
 * and nothing journaled without it), 200 only once the inbox journaled the message, a message
 * posted twice handled once; sends, downloads and the server's failures as the outbox's error
 * classes, none carrying a secret; and the end-to-end run through a durable Bot.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { MemoryDurability } from '../../src/core/index.js'
import { INTERACTION, TEXT } from '../../src/core/bot/matchers.js'
import { PayloadTooLargeError, RecipientUnreachableError, UnsupportedContentError } from '../../src/core/provider/provider-errors.js'
import type { IProvider } from '../../src/core/provider/provider.js'
import { WppconnectProvider } from '../../src/providers/wppconnect/index.js'
import { ProviderConfigError } from '../../src/providers/shared/errors.js'
import { waitFor } from '../../test-utils/wait.js'
import { AdmitGate } from './admit-gate.js'
import { durableChannelSuite } from './durable-channel.js'
import { json } from './fixtures/fake-http-api.js'
import { CHAT, FakeWppconnect, SESSION, imageMessage, messageIdOf, postWppconnectWebhook, textMessage } from './fixtures/fake-wppconnect.js'
import { FAST, useBots } from './harness.js'

const TOKEN = '$2b$10$wppconnect-session-token'
const SECRET = 'wppconnect-webhook-secret-0123'
const bots = useBots()
let fake: FakeWppconnect
afterEach(async () => {
  await fake?.stop()
})

function wppconnect(options: { token?: string; onError?: (e: unknown) => void } = {}): WppconnectProvider {
  return new WppconnectProvider({
    serverUrl: fake.origin,
    session: SESSION,
    token: options.token ?? TOKEN,
    webhook: { port: 0, host: '127.0.0.1', secret: SECRET },
    onError: options.onError ?? (() => undefined),
  })
}

async function wppBot(backend: MemoryDurability | AdmitGate = new MemoryDurability()) {
  fake = await new FakeWppconnect(TOKEN).start()
  const errors: unknown[] = []
  const provider = wppconnect({ onError: (e) => errors.push(e) })
  const handled: string[] = []
  const bot = await bots.start({ provider, durability: { ...FAST, backend } }, (b) => {
    b.when(TEXT, async (ctx) => {
      handled.push(ctx.message.text!)
      await ctx.reply(`echo: ${ctx.message.text}`)
    })
    b.when(INTERACTION, async (ctx) => void handled.push(`picked ${ctx.message.interaction!.id}`))
  })
  return { bot, origin: provider.webhookOrigin!, handled, errors }
}

describe('WppconnectProvider: webhook', () => {
  it('refuses a missing or wrong secret with 401 and journals nothing', async () => {
    const { origin, bot } = await wppBot()
    for (const secret of [undefined, '', 'wppconnect-webhook-secret-0124', `${SECRET}x`]) {
      expect((await postWppconnectWebhook(origin, textMessage('A1', 'hi'), secret)).status).toBe(401)
    }
    expect(await bot.durability!.inbox.list({})).toEqual([])
  })

  it('answers 200 only after the inbox journaled the message; a message posted again is handled once', async () => {
    const gate = new AdmitGate(new MemoryDurability())
    const { origin, handled, bot } = await wppBot(gate)
    const held = gate.hold()
    let answered = false
    const response = postWppconnectWebhook(origin, textMessage('B1', 'one'), SECRET).then((r) => {
      answered = true
      return r
    })
    await waitFor(() => held.waiting() === 1)
    // Nothing may answer while the journal write waits: give a wrong answer time to arrive.
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(answered).toBe(false)
    held.release()
    expect((await response).status).toBe(200)
    // The server posts unread messages again when it starts (`unreadmessages`).
    expect((await postWppconnectWebhook(origin, { ...textMessage('B1', 'one'), event: 'unreadmessages' }, SECRET)).status).toBe(200)
    await bot.idle()
    expect(handled).toEqual(['one'])
    expect(fake.sent.map((s) => [s.route, s.body])).toEqual([
      ['send-message', { phone: '5521999999999', isGroup: false, message: 'echo: one' }],
    ])
    expect(fake.requests.every((r) => r.headers.authorization === `Bearer ${TOKEN}`)).toBe(true)
  })

  it('a journal that refuses answers 500; own messages, other sessions and other events are acknowledged without an event', async () => {
    const gate = new AdmitGate(new MemoryDurability())
    const { origin, handled, bot, errors } = await wppBot(gate)
    gate.failNext(1)
    expect((await postWppconnectWebhook(origin, textMessage('C1', 'later'), SECRET)).status).toBe(500)
    expect(errors).toHaveLength(1)
    expect((await postWppconnectWebhook(origin, { ...textMessage('C2', 'mine'), fromMe: true }, SECRET)).status).toBe(200)
    expect((await postWppconnectWebhook(origin, textMessage('C3', 'x', 'other'), SECRET)).status).toBe(200)
    expect((await postWppconnectWebhook(origin, { event: 'onack', session: SESSION, id: messageIdOf('C1'), ack: 3 }, SECRET)).status).toBe(
      200,
    )
    const picked = { ...textMessage('C4', 'Yes'), type: 'list_response', listResponse: { singleSelectReply: { selectedRowId: 'yes' } } }
    expect((await postWppconnectWebhook(origin, picked, SECRET)).status).toBe(200)
    expect((await postWppconnectWebhook(origin, textMessage('C1', 'later'), SECRET)).status).toBe(200)
    await bot.idle()
    expect(handled).toEqual(['picked yes', 'later'])
  })
})

describe('WppconnectProvider: sends and downloads', () => {
  const failure = (p: WppconnectProvider, content: Parameters<WppconnectProvider['send']>[1] = 'hello') =>
    p.send(CHAT, content).then(
      () => new Error('sent'),
      (e: Error) => e,
    )

  it('text, a file by URL and from bytes, buttons as a list, to a contact and a group', async () => {
    fake = await new FakeWppconnect(TOKEN).start()
    const p = wppconnect()
    expect((await p.send(CHAT, 'hi')).messageId).toMatch(/^true_5521999999999@c\.us_3EB0/)
    await p.send('120363040000000000@g.us', 'hello group')
    await p.send(CHAT, { media: { type: 'image', url: 'https://example.com/a.jpg' }, caption: 'a photo' })
    await p.send(CHAT, { media: { type: 'document', buffer: Buffer.from('%PDF'), mimeType: 'application/pdf', fileName: 'invoice.pdf' } })
    await p.send(CHAT, { text: 'Confirm?', buttons: [{ id: 'yes', title: 'Yes' }] })
    expect(fake.sent.map((s) => [s.route, s.body])).toEqual([
      ['send-message', { phone: '5521999999999', isGroup: false, message: 'hi' }],
      ['send-message', { phone: '120363040000000000', isGroup: true, message: 'hello group' }],
      ['send-file', { phone: '5521999999999', isGroup: false, path: 'https://example.com/a.jpg', filename: 'a.jpg', caption: 'a photo' }],
      [
        'send-file-base64',
        {
          phone: '5521999999999',
          isGroup: false,
          base64: `data:application/pdf;base64,${Buffer.from('%PDF').toString('base64')}`,
          filename: 'invoice.pdf',
        },
      ],
      [
        'send-list-message',
        {
          phone: '5521999999999',
          isGroup: false,
          description: 'Confirm?',
          buttonText: 'Options',
          sections: [{ title: 'Options', rows: [{ rowId: 'yes', title: 'Yes' }] }],
        },
      ],
    ])
  })

  it("the server's failures as the outbox's classes, without a secret; content it cannot carry is refused before any call", async () => {
    fake = await new FakeWppconnect(TOKEN).start()
    const p = wppconnect()
    fake.numberMissingNext()
    expect(await failure(p)).toBeInstanceOf(RecipientUnreachableError)
    fake.failNext(json(404, { response: null, status: 'Disconnected', message: 'A sessão do WhatsApp não está ativa.' }))
    expect(await failure(p)).toMatchObject({ code: 'CHANNEL_SERVER_ERROR', retryable: true })
    fake.failNext(json(500, { status: 'Error', message: 'Erro ao enviar a mensagem.', error: {} }))
    expect(await failure(p)).toMatchObject({ code: 'CHANNEL_SERVER_ERROR', retryable: true })
    fake.failNext(json(429, { message: 'slow down' }, { 'retry-after': '2' }))
    expect(await failure(p)).toMatchObject({ code: 'RATE_LIMITED', retryAfterMs: 2000 })
    const wrong = await failure(wppconnect({ token: 'wrong-token-of-some-length' }))
    expect(wrong).toMatchObject({ code: 'CHANNEL_UNAUTHORIZED', retryable: false })
    expect(wrong.message).not.toContain('wrong-token-of-some-length')
    // The detail is redacted before it is cut to 300 characters: a cut through the token leaves none of it.
    fake.failNext(json(500, { message: `${'x'.repeat(278)}${TOKEN}` }))
    const cut = await failure(p)
    expect(cut.message).toContain('xxxx')
    expect(cut.message).not.toContain(TOKEN.slice(0, 8))
    const calls = fake.requests.length
    expect(await failure(p, 'x'.repeat(4097))).toBeInstanceOf(PayloadTooLargeError)
    expect(
      await failure(p, { media: { type: 'image', url: 'https://example.com/a.jpg' }, buttons: [{ id: 'a', title: 'A' }] }),
    ).toBeInstanceOf(UnsupportedContentError)
    expect(fake.requests.length).toBe(calls)
  })

  it('downloads by message id; a journaled reference rebuilds the id', async () => {
    fake = await new FakeWppconnect(TOKEN).start()
    const p = wppconnect()
    fake.media.set(messageIdOf('D1'), Buffer.from('the photo').toString('base64'))
    const stored = p.serializeMediaRef({ type: 'image', token: { id: messageIdOf('D1') } })!
    const rebuilt = p.rehydrateMediaRef(JSON.parse(JSON.stringify(stored)), { type: 'image', token: undefined })
    expect(await p.download(rebuilt)).toEqual(Buffer.from('the photo'))
    expect(await p.download({ type: 'image', token: { id: messageIdOf('missing') } }).catch((e: Error) => e)).toMatchObject({
      code: 'CHANNEL_REJECTED',
    })
  })

  it('refuses missing or weak options when constructed', () => {
    const base = { serverUrl: 'http://127.0.0.1:1', session: 's', token: 't', webhook: { port: 0, secret: SECRET } }
    expect(() => new WppconnectProvider({ ...base, token: '' })).toThrow(ProviderConfigError)
    expect(() => new WppconnectProvider({ ...base, webhook: { port: 0, secret: 'short' } })).toThrow(ProviderConfigError)
  })
})

describe('WppconnectProvider', () => {
  durableChannelSuite(async () => {
    const double = await new FakeWppconnect(TOKEN).start()
    const origin = (p: IProvider) => (p as WppconnectProvider).webhookOrigin!
    const answered = async (response: Promise<Response>) => {
      const status = (await response).status
      if (status !== 200) throw new Error(`the webhook answered ${status}`)
    }
    return {
      channel: 'wppconnect',
      chatId: CHAT,
      provider: () =>
        new WppconnectProvider({
          serverUrl: double.origin,
          session: SESSION,
          token: TOKEN,
          webhook: { port: 0, host: '127.0.0.1', secret: SECRET },
          onError: () => undefined,
        }),
      inboundText: (p, id, text) => answered(postWppconnectWebhook(origin(p), textMessage(id, text), SECRET)),
      inboundImage: (p, id, bytes) => {
        double.media.set(messageIdOf(id), bytes.toString('base64'))
        return answered(postWppconnectWebhook(origin(p), imageMessage(id), SECRET))
      },
      eventId: messageIdOf,
      sentTexts: () => double.texts(),
      sendTimes: () => double.requests.filter((r) => r.path.includes('/send-')).map((r) => r.at),
      rateLimitNext: (seconds) => double.failNext(json(429, { message: 'Too Many Requests' }, { 'retry-after': String(seconds) })),
      finalErrorNext: () => double.numberMissingNext(),
      finalErrorCode: 'RECIPIENT_UNREACHABLE',
      secrets: [TOKEN, SECRET],
      stop: () => double.stop(),
    }
  })
})
