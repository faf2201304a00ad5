/**
 * Crash recovery with the Telegram transport (long polling, SQLite durability): a photo whose
 * update was journaled, then the process died in the handler before its reply; the restart
 * replays it, downloads the photo by the journaled `file_id`, and replies once. Telegram does not
 * hand the update out again (it was confirmed once journaled), so nothing is handled twice.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, expect, it } from 'vitest'
import { SQLiteStore } from '../../src/backends/sqlite/index.js'
import type { Bot } from '../../src/core/bot/bot.js'
import type { Context } from '../../src/core/bot/context.js'
import { IMAGE } from '../../src/core/bot/matchers.js'
import { loadMediaOf } from '../../src/core/provider/media.js'
import { crashable } from '../../src/testing/crashable.js'
import { TelegramProvider } from '../../src/providers/telegram/index.js'
import { waitFor } from '../../test-utils/wait.js'
import { FakeTelegram } from './fixtures/fake-telegram.js'
import { FAST, useBots } from './harness.js'
import { inboxRecordId } from '../../src/core/durability/outbox/keys.js'

const TOKEN = '555:AAE-recovery_token-value'
const bots = useBots()
const dir = mkdtempSync(join(tmpdir(), 'botmesh-telegram-'))
const providers: TelegramProvider[] = []
let fake: FakeTelegram
afterEach(async () => {
  // A crashed bot is never stopped; its poller is stopped here.
  await Promise.all(providers.splice(0).map((p) => p.stop()))
  await fake?.stop()
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function telegram(): TelegramProvider {
  const p = new TelegramProvider({ token: TOKEN, apiRoot: fake.origin, pollTimeoutSeconds: 1, onError: () => undefined })
  providers.push(p)
  return p
}

it('a crash after a photo was journaled: the restart replays it, downloads the photo and replies once', async () => {
  fake = await new FakeTelegram(TOKEN).start()
  fake.addFile('AgACAgQAAxkBAAIRecovery', Buffer.from('the photo'))
  const store = new SQLiteStore({ file: join(dir, 'bot.db') })
  const backend = store.durability()
  const seen: (Buffer | undefined)[] = []
  const setup = (b: Bot) =>
    b.when(IMAGE, async (ctx: Context) => {
      seen.push(await loadMediaOf(ctx, { throwOnError: true }))
      await ctx.reply('got your photo')
    })
  const a = crashable(backend).crashBefore('outbox.journal')
  const first = await bots.start({ provider: telegram(), store, durability: { ...FAST, backend: a, instanceId: 'tg-1' } }, setup)
  const id = fake.push(fake.message({ photo: [{ file_id: 'AgACAgQAAxkBAAIRecovery', file_unique_id: 'r', width: 1, height: 1 }] }))
  await a.whenCrashed()
  bots.abandon(first)
  // The update was confirmed once journaled (the crash came later, in the handler).
  await waitFor(() => fake.offsets.includes(id + 1))
  await providers[0]!.stop()
  expect(fake.sent).toEqual([])
  const second = await bots.start({ provider: telegram(), store, durability: { ...FAST, backend, instanceId: 'tg-1' } }, setup)
  await waitFor(async () => (await second.durability!.inbox.get(inboxRecordId('telegram', '42', `tg:${id}`)))?.state === 'done')
  await second.idle()
  expect(seen).toEqual([Buffer.from('the photo'), Buffer.from('the photo')])
  expect(fake.sent.map((s) => s.text)).toEqual(['got your photo'])
  expect(fake.deliveries.get(id)).toBe(1)
  expect(JSON.stringify(await second.durability!.inbox.get(inboxRecordId('telegram', '42', `tg:${id}`)))).not.toContain(TOKEN)
})
