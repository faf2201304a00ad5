/**
 * The Telegram transport in webhook mode (200 only after the inbox journaled the update, the secret
 * token header, a redelivery handled once) and its Bot API failures as the outbox's error classes,
 * against a fake Bot API server on 127.0.0.1. The bot token appears in no error.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { MemoryDurability } from '../../src/core/index.js'
import type { Context } from '../../src/core/bot/context.js'
import { TEXT } from '../../src/core/bot/matchers.js'
import {
  PayloadTooLargeError,
  RateLimitedError,
  RecipientUnreachableError,
  UnsupportedContentError,
} from '../../src/core/provider/provider-errors.js'
import { TelegramProvider } from '../../src/providers/telegram/index.js'
import { TelegramApiError } from '../../src/providers/telegram/errors.js'
import { MediaDownloadError, ProviderConfigError, WeakWebhookSecretError } from '../../src/providers/shared/errors.js'
import { waitFor } from '../../test-utils/wait.js'
import { AdmitGate } from './admit-gate.js'
import { FakeTelegram } from './fixtures/fake-telegram.js'
import { FAST, useBots } from './harness.js'

const TOKEN = '987654:AAF-another_secret-token'
const SECRET = 'webhook-secret_123'
const bots = useBots()
let fake: FakeTelegram
afterEach(async () => {
  await fake?.stop()
})

const update = (update_id: number, text: string) => ({
  update_id,
  message: { message_id: update_id, date: 1_700_000_000, chat: { id: 7, type: 'private' }, text },
})
const post = (origin: string, body: unknown, secret = SECRET) =>
  fetch(`${origin}/telegram`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': secret },
    body: JSON.stringify(body),
  })

async function webhookBot(backend = new MemoryDurability() as MemoryDurability | AdmitGate, handled: string[] = []) {
  fake = await new FakeTelegram(TOKEN).start()
  const provider = new TelegramProvider({
    token: TOKEN,
    apiRoot: fake.origin,
    webhook: { port: 0, host: '127.0.0.1', secretToken: SECRET, url: 'https://bot.example.com/telegram' },
    onError: () => undefined,
  })
  const bot = await bots.start({ provider, durability: { ...FAST, backend } }, (b) =>
    b.when(TEXT, async (ctx: Context) => void handled.push(ctx.message.text!)),
  )
  return { bot, provider, origin: provider.webhookOrigin!, handled }
}

describe('TelegramProvider: webhook', () => {
  it('registers the webhook with its secret token, and answers 200 only after the inbox journaled the update', async () => {
    const gate = new AdmitGate(new MemoryDurability())
    const { origin, handled } = await webhookBot(gate)
    expect(fake.callsOf('setWebhook')).toEqual([expect.objectContaining({ url: 'https://bot.example.com/telegram', secret_token: SECRET })])
    const held = gate.hold()
    let answered = false
    const response = post(origin, update(1, 'hi')).then((r) => {
      answered = true
      return r
    })
    await waitFor(() => held.waiting() === 1)
    expect(answered).toBe(false)
    held.release()
    expect((await response).status).toBe(200)
    await waitFor(() => handled.length === 1)
  })

  it('refuses a wrong or missing secret token with 401 and journals nothing', async () => {
    const backend = new MemoryDurability()
    const { origin, bot } = await webhookBot(backend)
    expect((await post(origin, update(1, 'x'), 'wrong-secret')).status).toBe(401)
    expect((await fetch(`${origin}/telegram`, { method: 'POST', body: JSON.stringify(update(2, 'y')) })).status).toBe(401)
    expect((await post(origin, 'not an update')).status).toBe(400)
    expect(await bot.durability!.inbox.list({})).toEqual([])
  })

  it('a journal that refuses the update answers 500; Telegram’s redelivery is then handled, and a second redelivery is recognised', async () => {
    const gate = new AdmitGate(new MemoryDurability()).failNext(1)
    const { origin, handled, bot } = await webhookBot(gate)
    expect((await post(origin, update(5, 'again'))).status).toBe(500)
    expect((await post(origin, update(5, 'again'))).status).toBe(200)
    expect((await post(origin, update(5, 'again'))).status).toBe(200)
    await waitFor(() => handled.length === 1)
    await bot.idle()
    expect(handled).toEqual(['again'])
    expect(bot.durability!.metrics().inboundDuplicates).toBe(1)
  })
})

describe('TelegramProvider: Bot API failures', () => {
  async function polling() {
    fake = await new FakeTelegram(TOKEN).start()
    return new TelegramProvider({ token: TOKEN, apiRoot: fake.origin, pollTimeoutSeconds: 1 })
  }
  const refusal = async (p: TelegramProvider) =>
    p.send('7', 'hello').then(
      () => undefined,
      (e: unknown) => e as Error,
    )

  it('429 retry_after → RateLimitedError with retryAfterMs', async () => {
    const p = await polling()
    fake.failNext('sendMessage', { error_code: 429, description: 'Too Many Requests: retry after 3', parameters: { retry_after: 3 } })
    const error = await refusal(p)
    expect(error).toBeInstanceOf(RateLimitedError)
    expect(error).toMatchObject({ retryAfterMs: 3000, retryable: true })
  })

  it('403 (blocked by the user) → RecipientUnreachableError, final: the outbox dead-letters it after one call', async () => {
    const p = await polling()
    fake.failNext('sendMessage', { error_code: 403, description: 'Forbidden: bot was blocked by the user' })
    expect(await refusal(p)).toBeInstanceOf(RecipientUnreachableError)
    fake.failNext('sendMessage', { error_code: 403, description: 'Forbidden: bot was blocked by the user' })
    const dead: unknown[] = []
    const bot = await bots.start({ provider: p, durability: { ...FAST } })
    bot.on('durability:dead', (info) => dead.push(info))
    await expect(bot.send('7', 'hello')).rejects.toThrow()
    await waitFor(() => dead.length === 1)
    expect(fake.callsOf('sendMessage')).toHaveLength(2)
  })

  it('other client errors are final; server errors are retried', async () => {
    const p = await polling()
    const cases: [number, string, unknown, boolean][] = [
      [400, 'Bad Request: chat not found', RecipientUnreachableError, false],
      [400, 'Bad Request: message is too long', PayloadTooLargeError, false],
      [413, 'Request Entity Too Large', PayloadTooLargeError, false],
      [400, 'Bad Request: wrong file identifier/HTTP URL specified', UnsupportedContentError, false],
      [400, 'Bad Request: message text is empty', TelegramApiError, false],
      [401, 'Unauthorized', TelegramApiError, false],
      [502, 'Bad Gateway', TelegramApiError, true],
    ]
    for (const [error_code, description, type, retryable] of cases) {
      fake.failNext('sendMessage', { error_code, description })
      const error = await refusal(p)
      expect(error, description).toBeInstanceOf(type as new () => Error)
      expect(error, description).toMatchObject({ retryable })
      expect(error!.message).not.toContain(TOKEN)
    }
  })

  it('no error carries the token: a refused getFile, a file the file server no longer has, an unreachable API', async () => {
    const p = await polling()
    const errors: Error[] = []
    fake.failNext('getFile', { error_code: 400, description: 'Bad Request: invalid file_id' })
    errors.push(
      await p.download({ type: 'image', token: { file_id: 'AgAC-x' } }).then(
        () => new Error('downloaded'),
        (e: Error) => e,
      ),
    )
    expect(errors[0]).toMatchObject({ code: 'TELEGRAM_REJECTED', retryable: false })
    fake.addFile('AgAC-x', Buffer.from('x'), 'photos/x.jpg')
    expect(await p.download({ type: 'image', token: 'AgAC-x' })).toEqual(Buffer.from('x'))
    fake.expiredPaths.add('photos/x.jpg')
    errors.push(
      await p.download({ type: 'image', token: 'AgAC-x' }).then(
        () => new Error('downloaded'),
        (e: Error) => e,
      ),
    )
    expect(errors[1]).toBeInstanceOf(MediaDownloadError)
    expect(errors[1]).toMatchObject({ status: 404, retryable: false })
    errors.push(
      await p.download({ type: 'image', token: 42 }).then(
        () => new Error('downloaded'),
        (e: Error) => e,
      ),
    )
    expect(errors[2]).toBeInstanceOf(MediaDownloadError)
    const origin = fake.origin
    await fake.stop()
    errors.push(
      await new TelegramProvider({ token: TOKEN, apiRoot: origin }).send('7', 'x').then(
        () => new Error('sent'),
        (e: Error) => e,
      ),
    )
    expect(errors[3]).toMatchObject({ code: 'TELEGRAM_NETWORK', retryable: true })
    for (const error of errors) {
      expect(error.message).not.toContain(TOKEN)
      expect(String((error as { cause?: Error }).cause?.message ?? '')).not.toContain(TOKEN)
    }
  })

  it('rebuilds a journaled media reference without the transport started (grammY not even loaded)', () => {
    const p = new TelegramProvider({ token: TOKEN })
    const stored = p.serializeMediaRef({
      type: 'image',
      token: { file_id: 'AgACAgQAAxkB', file_path: `https://api.telegram.org/file/bot${TOKEN}/x.jpg` },
    })!
    expect(JSON.stringify(stored)).not.toContain(TOKEN)
    expect(p.rehydrateMediaRef(JSON.parse(JSON.stringify(stored)), { type: 'image', token: undefined }).token).toEqual({
      file_id: 'AgACAgQAAxkB',
    })
    expect(() =>
      p.rehydrateMediaRef({ v: 1, data: { fileId: 'AgACAgQAAxkB', check: 'tampered' } }, { type: 'image', token: undefined }),
    ).toThrow(expect.objectContaining({ code: 'MEDIA_REF_INVALID' }))
  })

  it('refuses a malformed token or webhook secret when constructed', () => {
    expect(() => new TelegramProvider({ token: 'not-a-token' })).toThrow(ProviderConfigError)
    expect(() => new TelegramProvider({ token: TOKEN, webhook: { port: 0, secretToken: 'has spaces' } })).toThrow(ProviderConfigError)
  })

  it('refuses a webhook secret under 16 characters, never starting, with a WeakWebhookSecretError', () => {
    for (const secretToken of ['q', 'fifteen-chars-x', '']) {
      let thrown: unknown
      try {
        new TelegramProvider({ token: TOKEN, webhook: { port: 0, secretToken } })
      } catch (error) {
        thrown = error
      }
      expect(thrown).toBeInstanceOf(WeakWebhookSecretError)
      expect(thrown).toMatchObject({ code: 'PROVIDER_CONFIG_INVALID', channel: 'telegram', option: 'webhook.secretToken' })
      if (secretToken) expect((thrown as Error).message).not.toContain(secretToken)
    }
    expect(() => new TelegramProvider({ token: TOKEN, webhook: { port: 0, secretToken: 'sixteen-chars-xx' } })).not.toThrow()
  })
})
