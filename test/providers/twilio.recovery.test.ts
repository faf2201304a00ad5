/**
 * Crash recovery with the Twilio transport (SQLite durability): an MMS whose webhook was journaled,
 * then the process died before its reply; the restart replays it, downloads the picture by the
 * journaled media URL (with the credentials added at download time, never journaled), and replies
 * once.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, expect, it } from 'vitest'
import { SQLiteStore } from '../../src/backends/sqlite/index.js'
import type { Bot } from '../../src/core/bot/bot.js'
import type { Context } from '../../src/core/bot/context.js'
import { inboxRecordId } from '../../src/core/durability/outbox/keys.js'
import { IMAGE } from '../../src/core/bot/matchers.js'
import { loadMediaOf } from '../../src/core/provider/media.js'
import { crashable } from '../../src/testing/crashable.js'
import { TwilioProvider } from '../../src/providers/twilio/index.js'
import { waitFor } from '../../test-utils/wait.js'
import { ACCOUNT_SID, AUTH_TOKEN, FakeTwilio, TWILIO_NUMBER, incomingMessage, postTwilio } from './fixtures/fake-twilio.js'
import { FAST, useBots } from './harness.js'

const PUBLIC_URL = 'https://bot.example.com/twilio'
const USER = '+5511999990000'
const bots = useBots()
const dir = mkdtempSync(join(tmpdir(), 'botmesh-twilio-'))
const providers: TwilioProvider[] = []
let twilio: FakeTwilio
afterEach(async () => {
  // A crashed bot is never stopped; its webhook server is closed here.
  await Promise.all(providers.splice(0).map((p) => p.stop()))
  await twilio?.stop()
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function twilioProvider(): TwilioProvider {
  const p = new TwilioProvider({
    accountSid: ACCOUNT_SID,
    authToken: AUTH_TOKEN,
    from: TWILIO_NUMBER,
    webhook: { port: 0, host: '127.0.0.1', publicUrl: PUBLIC_URL },
    apiOrigin: twilio.origin,
    onError: () => undefined,
  })
  providers.push(p)
  return p
}

it('a crash after an MMS was journaled: the restart replays it, downloads the picture by its URL and replies once', async () => {
  twilio = await new FakeTwilio().start()
  twilio.media.set('ME0001', { bytes: Buffer.from('the picture'), mime: 'image/jpeg' })
  const store = new SQLiteStore({ file: join(dir, 'bot.db') })
  const backend = store.durability()
  const seen: (Buffer | undefined)[] = []
  const setup = (b: Bot) =>
    b.when(IMAGE, async (ctx: Context) => {
      seen.push(await loadMediaOf(ctx, { throwOnError: true }))
      await ctx.reply('got your picture')
    })
  const a = crashable(backend).crashBefore('outbox.journal')
  const firstProvider = twilioProvider()
  const first = await bots.start({ provider: firstProvider, store, durability: { ...FAST, backend: a, instanceId: 'tw-1' } }, setup)
  const form = incomingMessage({
    sid: 'MM0001',
    from: USER,
    body: 'my receipt',
    NumMedia: '1',
    MediaUrl0: twilio.mediaUrl('MM0001', 'ME0001'),
    MediaContentType0: 'image/jpeg',
  })
  expect((await postTwilio(firstProvider.webhookOrigin!, PUBLIC_URL, form)).status).toBe(200)
  await a.whenCrashed()
  bots.abandon(first)
  await firstProvider.stop()
  expect(twilio.sent).toEqual([])
  const second = await bots.start({ provider: twilioProvider(), store, durability: { ...FAST, backend, instanceId: 'tw-1' } }, setup)
  const id = inboxRecordId('twilio', USER, 'MM0001')
  await waitFor(async () => (await second.durability!.inbox.get(id))?.state === 'done')
  expect(seen).toEqual([Buffer.from('the picture'), Buffer.from('the picture')])
  expect(twilio.bodies()).toEqual(['got your picture'])
  const record = await second.durability!.inbox.get(id)
  expect(record!.event).toMatchObject({
    text: 'my receipt',
    media: { type: 'image', stored: { provider: 'twilio', v: 1, data: { url: twilio.mediaUrl('MM0001', 'ME0001') } } },
  })
  expect(JSON.stringify(record)).not.toContain(AUTH_TOKEN)
  // The credentials went to the API (which redirected to its CDN), never into the journal.
  expect(twilio.requests.filter((r) => r.url.pathname.endsWith('/Media/ME0001'))).toHaveLength(2)
})
