/**
 * The Telegram transport (long polling) through the end-to-end run every channel passes
 * (durable-channel.ts), against the fake Bot API: an update in and its reply out, a crash in the
 * handler and a restart that replies once, a photo replayed after a crash that downloads again by
 * its journaled file_id, a 429 honoured (the retry waits retry_after), and a blocked user (403)
 * dead-lettered after one call.
 */
import { describe } from 'vitest'
import { TelegramProvider } from '../../src/providers/telegram/index.js'
import { waitFor } from '../../test-utils/wait.js'
import { durableChannelSuite } from './durable-channel.js'
import { FakeTelegram } from './fixtures/fake-telegram.js'

const TOKEN = '123456:AAH-durable-bot-token_value'

describe('TelegramProvider', () => {
  durableChannelSuite(async () => {
    const fake = await new FakeTelegram(TOKEN).start()
    const updates = new Map<string, number>()
    // Answered, for Telegram: a later getUpdates confirmed the update (its offset is past it).
    const confirmed = (updateId: number) =>
      waitFor(() => fake.offsets.some((offset) => offset !== undefined && offset > updateId), {
        timeoutMs: 15_000,
        message: `update ${updateId} to be confirmed`,
      })
    const deliver = async (id: string, fields: Record<string, unknown>) => {
      const updateId = fake.push(fake.message(fields))
      updates.set(id, updateId)
      await confirmed(updateId)
    }
    return {
      channel: 'telegram',
      chatId: '42',
      provider: () => new TelegramProvider({ token: TOKEN, apiRoot: fake.origin, pollTimeoutSeconds: 1, onError: () => undefined }),
      inboundText: (_provider, id, text) => deliver(id, { text }),
      async inboundImage(_provider, id, bytes) {
        fake.addFile(`photo-${id}`, bytes)
        await deliver(id, { photo: [{ file_id: `photo-${id}`, file_unique_id: `u-${id}`, width: 800, height: 600 }] })
      },
      eventId: (id) => `tg:${updates.get(id)}`,
      sentTexts: () => fake.sent.filter((s) => s.method === 'sendMessage').map((s) => s.text!),
      sendTimes: () => fake.calls.filter((c) => c.method === 'sendMessage').map((c) => c.at),
      rateLimitNext: (seconds) =>
        fake.failNext('sendMessage', {
          error_code: 429,
          description: `Too Many Requests: retry after ${seconds}`,
          parameters: { retry_after: seconds },
        }),
      finalErrorNext: () => fake.failNext('sendMessage', { error_code: 403, description: 'Forbidden: bot was blocked by the user' }),
      finalErrorCode: 'RECIPIENT_UNREACHABLE',
      secrets: [TOKEN],
      stop: () => fake.stop(),
    }
  })
})
