/**
 * Freshness and replay on the webhooks whose sender signs a time or a token (issue 41 item 3),
 * through each provider's real server on 127.0.0.1 and a durable bot, the clock set by the test:
 * a signed time more than 5 minutes off the clock is 401, a signature, token or webhook id taken
 * once is 401 again until it expires, an Evolution token issued for over 10 minutes is 401, and
 * nothing refused is journaled. A request the journal refused may come again.
 */
import { generateKeyPairSync, sign } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import { MemoryDurability } from '../../src/core/index.js'
import { INTERACTION, TEXT } from '../../src/core/bot/matchers.js'
import type { IProvider } from '../../src/core/provider/provider.js'
import { DiscordProvider } from '../../src/providers/discord/index.js'
import { EvolutionProvider, webhookTokenOf } from '../../src/providers/evolution/index.js'
import { GoHighLevelProvider } from '../../src/providers/gohighlevel/index.js'
import { AdmitGate } from './admit-gate.js'
import { BOT_TOKEN, FakeDiscord, buttonPress } from './fixtures/fake-discord.js'
import { FakeEvolution, INSTANCE, postEvolutionWebhook, textData, upsertOf } from './fixtures/fake-evolution.js'
import { FakeGoHighLevel, LOCATION, inboundMessage, postHighLevelWebhook, signingKeys } from './fixtures/fake-gohighlevel.js'
import { FAST, useBots } from './harness.js'

const NOW = 1_700_000_000_000
const bots = useBots()
const fakes: { stop(): Promise<void> }[] = []
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((f) => f.stop()))
})

async function botOf(provider: IProvider, backend: MemoryDurability | AdmitGate = new MemoryDurability()) {
  const handled: string[] = []
  const bot = await bots.start({ provider, durability: { ...FAST, backend } }, (b) => {
    b.when(TEXT, async (ctx) => void handled.push(ctx.message.text!))
    b.when(INTERACTION, async (ctx) => void handled.push(`pressed ${ctx.message.interaction!.id}`))
  })
  return { bot, handled, journaled: async () => (await bot.durability!.inbox.list({})).length }
}

describe('Discord interactions: freshness and replay', () => {
  it('a signed timestamp more than 5 minutes off the clock, or a signature taken before, is 401 and journals nothing', async () => {
    const discord = await new FakeDiscord().start()
    fakes.push(discord)
    const { publicKey, privateKey } = generateKeyPairSync('ed25519')
    const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url').toString('hex')
    let now = NOW
    const p = new DiscordProvider({
      token: BOT_TOKEN,
      apiRoot: `${discord.origin}/api`,
      gateway: false,
      interactions: { port: 0, host: '127.0.0.1', publicKey: raw, clock: () => now, replayEntriesMax: 2 },
      onError: () => undefined,
    })
    const { bot, handled, journaled } = await botOf(p)
    const signed = (body: object, timestamp: string) => {
      const text = JSON.stringify(body)
      const signature = sign(null, Buffer.from(timestamp + text), privateKey).toString('hex')
      return { headers: { 'content-type': 'application/json', 'x-signature-ed25519': signature, 'x-signature-timestamp': timestamp }, text }
    }
    const send = ({ headers, text }: ReturnType<typeof signed>) =>
      fetch(`${p.interactionsOrigin}/interactions`, { method: 'POST', headers, body: text })
    // Signed 30 days ago, 301 s ago, 301 s ahead, or with a timestamp that is not whole seconds: refused.
    for (const [i, timestamp] of ['1697408000', '1699999699', '1700000301', '1700000000.5', 'x'].entries()) {
      expect((await send(signed(buttonPress(`140000000000000010${i}`, '900000000000000001', 'old'), timestamp))).status).toBe(401)
    }
    expect(await journaled()).toBe(0)
    // 300 s either way is still fresh; the same signed request again is a replay.
    const first = signed(buttonPress('1400000000000000201', '900000000000000001', 'one'), '1699999700')
    expect((await send(first)).status).toBe(200)
    expect((await send(first)).status).toBe(401)
    expect((await send(signed(buttonPress('1400000000000000202', '900000000000000001', 'two'), '1700000300'))).status).toBe(200)
    // Past the cache's bound (2 here) the oldest signature leaves it: the clock alone refuses it once stale.
    expect((await send(signed({ id: '1', type: 1, token: 't' }, '1700000000'))).status).toBe(200)
    now += 6 * 60_000
    expect((await send(first)).status).toBe(401)
    await bot.idle()
    expect(handled).toEqual(['pressed one', 'pressed two'])
    expect(await journaled()).toBe(2)
  })
})

describe('Evolution webhook: one use per token', () => {
  const JWT_KEY = 'evolution-webhook-jwt-key-4567'

  async function evolutionBot(clock: () => number, backend?: AdmitGate) {
    const fake = await new FakeEvolution('evolution-instance-key-0123').start()
    fakes.push(fake)
    const p = new EvolutionProvider({
      apiUrl: fake.origin,
      instance: INSTANCE,
      apiKey: 'evolution-instance-key-0123',
      webhook: { port: 0, host: '127.0.0.1', jwtKey: JWT_KEY, clock },
      onError: () => undefined,
    })
    return { origin: p.webhookOrigin, ...(await botOf(p, backend)), p }
  }

  it('a token taken once is 401 with any body until it expires; a token issued for over 10 minutes is 401', async () => {
    let now = NOW
    const { p, handled, bot, journaled } = await evolutionBot(() => now)
    const post = (id: string, text: string, token: string) =>
      postEvolutionWebhook(p.webhookOrigin!, upsertOf(textData(id, text)), JWT_KEY, `Bearer ${token}`)
    const token = webhookTokenOf(JWT_KEY, now)
    expect((await post('3EB0F1', 'first', token)).status).toBe(200)
    // A captured token with a forged body, or the same request again: refused.
    expect((await post('3EB0F2', 'forged', token)).status).toBe(401)
    expect((await post('3EB0F1', 'first', token)).status).toBe(401)
    // Evolution issues tokens for ten minutes: one issued for longer is refused, ten minutes is taken.
    expect((await post('3EB0F3', 'long', webhookTokenOf(JWT_KEY, now - 1000, 601))).status).toBe(401)
    expect((await post('3EB0F4', 'ten minutes', webhookTokenOf(JWT_KEY, now - 2000, 600))).status).toBe(200)
    // Once expired (ten minutes and the clock skew later), the token is refused by its `exp`.
    now += 12 * 60_000
    expect((await post('3EB0F5', 'late', token)).status).toBe(401)
    await bot.idle()
    expect(handled).toEqual(['first', 'ten minutes'])
    expect(await journaled()).toBe(2)
  })

  it('a token whose request the journal refused is taken again (the retry)', async () => {
    const gate = new AdmitGate(new MemoryDurability())
    const { p, handled, bot } = await evolutionBot(() => NOW, gate)
    const token = `Bearer ${webhookTokenOf(JWT_KEY, NOW)}`
    gate.failNext(1)
    expect((await postEvolutionWebhook(p.webhookOrigin!, upsertOf(textData('3EB0F6', 'retried')), JWT_KEY, token)).status).toBe(500)
    expect((await postEvolutionWebhook(p.webhookOrigin!, upsertOf(textData('3EB0F6', 'retried')), JWT_KEY, token)).status).toBe(200)
    expect((await postEvolutionWebhook(p.webhookOrigin!, upsertOf(textData('3EB0F7', 'again')), JWT_KEY, token)).status).toBe(401)
    await bot.idle()
    expect(handled).toEqual(['retried'])
  })
})

describe('GoHighLevel webhook: freshness and replay', () => {
  const KEYS = signingKeys('ed25519')

  async function highLevelBot(clock: () => number, backend?: AdmitGate) {
    const fake = await new FakeGoHighLevel('pit-6f2a1c3e-location-token').start()
    fakes.push(fake)
    const p = new GoHighLevelProvider({
      token: 'pit-6f2a1c3e-location-token',
      locationId: LOCATION,
      apiRoot: fake.origin,
      webhook: { port: 0, host: '127.0.0.1', publicKey: KEYS.publicPem, clock },
      onError: () => undefined,
    })
    const post = (payload: unknown) => postHighLevelWebhook(p.webhookOrigin!, payload, KEYS.privateKey)
    return { post, ...(await botOf(p, backend)) }
  }
  const at = (ms: number) => new Date(ms).toISOString()

  it('a signed timestamp missing or more than 5 minutes off is 401; a webhookId taken once is 401 again', async () => {
    const { post, handled, bot, journaled } = await highLevelBot(() => NOW)
    for (const timestamp of [at(NOW - 30 * 86_400_000), at(NOW - 301_000), at(NOW + 301_000), undefined, 'yesterday']) {
      expect((await post(inboundMessage('h1', 'old', { timestamp }))).status).toBe(401)
    }
    expect(await journaled()).toBe(0)
    const first = inboundMessage('h2', 'first', { timestamp: at(NOW - 300_000), webhookId: 'wh-1' })
    expect((await post(first)).status).toBe(200)
    // The same signed webhook again, or another signed webhook under the same id: refused.
    expect((await post(first)).status).toBe(401)
    expect((await post(inboundMessage('h3', 'second', { timestamp: at(NOW), webhookId: 'wh-1' }))).status).toBe(401)
    // Without a webhookId, the signature is the key.
    const anonymous = inboundMessage('h4', 'no id', { timestamp: at(NOW + 300_000), webhookId: undefined })
    expect((await post(anonymous)).status).toBe(200)
    expect((await post(anonymous)).status).toBe(401)
    await bot.idle()
    expect(handled).toEqual(['first', 'no id'])
  })

  it('a webhook the journal refused is taken again under its webhookId (HighLevel retries it)', async () => {
    const gate = new AdmitGate(new MemoryDurability())
    const { post, handled, bot } = await highLevelBot(() => NOW, gate)
    const message = inboundMessage('h5', 'retried', { timestamp: at(NOW), webhookId: 'wh-5' })
    gate.failNext(1)
    expect((await post(message)).status).toBe(500)
    expect((await post(message)).status).toBe(200)
    expect((await post(message)).status).toBe(401)
    await bot.idle()
    expect(handled).toEqual(['retried'])
  })
})
