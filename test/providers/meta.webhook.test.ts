/**
 * The WhatsApp Cloud API webhook against real HTTP on 127.0.0.1: the GET verification, the
 * `X-Hub-Signature-256` check (401 on a bad signature), 200 only once the inbox journaled every
 * message of the payload, and a redelivered webhook recognised and handled once.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { MemoryDurability } from '../../src/core/index.js'
import type { Context } from '../../src/core/bot/context.js'
import { INTERACTION, TEXT } from '../../src/core/bot/matchers.js'
import { MetaCloudProvider } from '../../src/providers/meta/index.js'
import { signatureOf } from '../../src/providers/shared/hub-signature.js'
import { waitFor } from '../../test-utils/wait.js'
import { AdmitGate } from './admit-gate.js'
import { FakeGraph } from './fixtures/fake-graph.js'
import { PHONE_NUMBER_ID, payloadOf, postWebhook, textMessage } from './fixtures/meta-webhooks.js'
import { FAST, useBots } from './harness.js'
import { inboxRecordId } from '../../src/core/durability/outbox/keys.js'

const ACCESS_TOKEN = 'EAAG-secret-access-token-123'
const APP_SECRET = 'app-secret-456'
const VERIFY_TOKEN = 'verify-token-789'
const bots = useBots()
let graph: FakeGraph
afterEach(async () => {
  await graph?.stop()
})

async function metaBot(backend: MemoryDurability | AdmitGate = new MemoryDurability()) {
  graph = await new FakeGraph(ACCESS_TOKEN, PHONE_NUMBER_ID).start()
  const errors: unknown[] = []
  const provider = new MetaCloudProvider({
    accessToken: ACCESS_TOKEN,
    phoneNumberId: PHONE_NUMBER_ID,
    appSecret: APP_SECRET,
    verifyToken: VERIFY_TOKEN,
    webhook: { port: 0, host: '127.0.0.1' },
    graphApiRoot: graph.origin,
    onError: (e) => errors.push(e),
  })
  const handled: string[] = []
  const bot = await bots.start({ provider, durability: { ...FAST, backend } }, (b) => {
    b.when(TEXT, async (ctx: Context) => {
      handled.push(ctx.message.text!)
      await ctx.reply(`echo: ${ctx.message.text}`)
    })
    b.when(INTERACTION, async (ctx: Context) => void handled.push(`pressed ${ctx.message.interaction!.id}`))
  })
  return { bot, provider, origin: provider.webhookOrigin!, handled, errors }
}

describe('MetaCloudProvider: webhook', () => {
  it('GET answers the challenge only with the verify token', async () => {
    const { origin } = await metaBot()
    const ok = await fetch(`${origin}/webhook?hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1158201444`)
    expect([ok.status, await ok.text()]).toEqual([200, '1158201444'])
    for (const query of [
      `hub.mode=subscribe&hub.verify_token=wrong&hub.challenge=1`,
      `hub.mode=unsubscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1`,
      'hub.challenge=1',
    ]) {
      expect((await fetch(`${origin}/webhook?${query}`)).status).toBe(403)
    }
  })

  it('refuses a missing, wrong or other-secret signature with 401, and journals nothing', async () => {
    const { origin, bot } = await metaBot()
    const payload = payloadOf([textMessage('wamid.A1', 'hi')])
    const body = JSON.stringify(payload)
    expect((await postWebhook(origin, payload, APP_SECRET, 'sha256=' + '0'.repeat(64))).status).toBe(401)
    expect((await postWebhook(origin, payload, 'another-secret')).status).toBe(401)
    expect((await fetch(`${origin}/webhook`, { method: 'POST', body })).status).toBe(401)
    // A signature of another body (a replayed signature on a changed payload).
    expect(
      (await postWebhook(origin, payloadOf([textMessage('wamid.A1', 'changed')]), APP_SECRET, signatureOf(body, APP_SECRET))).status,
    ).toBe(401)
    expect(await bot.durability!.inbox.list({})).toEqual([])
  })

  it('answers 200 only after the inbox journaled every message of the payload; replies go out through the Graph API', async () => {
    const gate = new AdmitGate(new MemoryDurability())
    const { origin, handled } = await metaBot(gate)
    const held = gate.hold()
    let answered = false
    const response = postWebhook(origin, payloadOf([textMessage('wamid.B1', 'one'), textMessage('wamid.B2', 'two')]), APP_SECRET).then(
      (r) => {
        answered = true
        return r
      },
    )
    await waitFor(() => held.waiting() === 1)
    expect(answered).toBe(false)
    held.release()
    expect((await response).status).toBe(200)
    expect(gate.admits).toBe(2)
    await waitFor(() => graph.sent.length === 2)
    expect(handled).toEqual(['one', 'two'])
    expect(graph.sent.map((s) => [s.to, s.body.text])).toEqual([
      ['5511999999999', { body: 'echo: one', preview_url: false }],
      ['5511999999999', { body: 'echo: two', preview_url: false }],
    ])
    expect(graph.requests.every((r) => r.authorization === `Bearer ${ACCESS_TOKEN}`)).toBe(true)
  })

  it('a webhook redelivered by the platform is recognised and handled once', async () => {
    const { origin, handled, bot } = await metaBot()
    const payload = payloadOf([textMessage('wamid.C1', 'once')])
    expect((await postWebhook(origin, payload, APP_SECRET)).status).toBe(200)
    expect((await postWebhook(origin, payload, APP_SECRET)).status).toBe(200)
    await bot.idle()
    expect((await postWebhook(origin, payload, APP_SECRET)).status).toBe(200)
    await bot.idle()
    expect(handled).toEqual(['once'])
    expect(graph.texts()).toEqual(['echo: once'])
    expect(bot.durability!.metrics().inboundDuplicates).toBe(2)
  })

  it('a journal that refuses answers 500; Meta’s redelivery of the whole payload handles each message once', async () => {
    const gate = new AdmitGate(new MemoryDurability())
    const { origin, handled, bot, errors } = await metaBot(gate)
    expect((await postWebhook(origin, payloadOf([textMessage('wamid.D1', 'first')]), APP_SECRET)).status).toBe(200)
    // A payload with the first message again and a new one: the new one's journal write fails.
    const payload = payloadOf([textMessage('wamid.D1', 'first'), textMessage('wamid.D2', 'second')])
    gate.failNext(1)
    expect((await postWebhook(origin, payload, APP_SECRET)).status).toBe(500)
    expect(errors).toHaveLength(1)
    expect((await postWebhook(origin, payload, APP_SECRET)).status).toBe(200)
    await bot.idle()
    expect(handled).toEqual(['first', 'second'])
    expect(gate.admits).toBe(2)
  })

  it('status updates and other phone numbers are acknowledged without an event; button replies are interactions', async () => {
    const { origin, handled, bot } = await metaBot()
    const statuses = {
      object: 'whatsapp_business_account',
      entry: [
        {
          changes: [
            {
              field: 'messages',
              value: { metadata: { phone_number_id: PHONE_NUMBER_ID }, statuses: [{ id: 'wamid.X', status: 'delivered' }] },
            },
          ],
        },
      ],
    }
    expect((await postWebhook(origin, statuses, APP_SECRET)).status).toBe(200)
    expect((await postWebhook(origin, payloadOf([textMessage('wamid.E1', 'not mine')], '999'), APP_SECRET)).status).toBe(200)
    const button = {
      from: '5511999999999',
      id: 'wamid.E2',
      type: 'interactive',
      interactive: { type: 'button_reply', button_reply: { id: 'yes', title: 'Yes' } },
    }
    expect((await postWebhook(origin, payloadOf([button]), APP_SECRET)).status).toBe(200)
    await bot.idle()
    expect(handled).toEqual(['pressed yes'])
    expect((await bot.durability!.inbox.list({})).map((r) => r.id)).toEqual([inboxRecordId('meta', '5511999999999', 'wamid.E2')])
  })
})
