/**
 * The Discord transport against a fake Discord (REST and gateway) and a fake Discord CDN on
 * 127.0.0.1, through durable bots: gateway messages in and replies out, a button press acknowledged
 * only after the journal, the signed interactions endpoint (401 and nothing journaled on a bad
 * Ed25519 signature), sends (content split at 2000, buttons, uploads, embeds), REST failures as the
 * outbox's classes (a rate limit honoured, a blocked recipient dead-lettered), and a crash whose
 * replay downloads the attachment by its journaled CDN URL.
 */
import { generateKeyPairSync, sign } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { SQLiteStore } from '../../src/backends/sqlite/index.js'
import type { Bot } from '../../src/core/bot/bot.js'
import type { Context } from '../../src/core/bot/context.js'
import { inboxRecordId } from '../../src/core/durability/outbox/keys.js'
import { MemoryDurability } from '../../src/core/index.js'
import { IMAGE, INTERACTION, TEXT } from '../../src/core/bot/matchers.js'
import { loadMediaOf } from '../../src/core/provider/media.js'
import {
  PayloadTooLargeError,
  RateLimitedError,
  RecipientUnreachableError,
  UnsupportedContentError,
} from '../../src/core/provider/provider-errors.js'
import { crashable } from '../../src/testing/crashable.js'
import { DiscordProvider, type DiscordProviderOptions } from '../../src/providers/discord/index.js'
import { ChannelApiError, ProviderConfigError } from '../../src/providers/shared/errors.js'
import { waitFor } from '../../test-utils/wait.js'
import { AdmitGate } from './admit-gate.js'
import { FakeCdn } from './fixtures/fake-cdn.js'
import { BOT_TOKEN, FakeDiscord, buttonPress, discordMessage, type DiscordFailure } from './fixtures/fake-discord.js'
import { FAST, useBots } from './harness.js'

const CHANNEL = '900000000000000001'
const bots = useBots()
const dir = mkdtempSync(join(tmpdir(), 'botmesh-discord-'))
const providers: DiscordProvider[] = []
let discord: FakeDiscord
afterEach(async () => {
  await Promise.all(providers.splice(0).map((p) => p.stop()))
  await discord?.stop()
  discord = undefined!
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function provider(options: Partial<DiscordProviderOptions> = {}): Promise<DiscordProvider> {
  discord ??= await new FakeDiscord().start()
  // The fake CDN answers for Discord's CDN hosts on 127.0.0.1: origins the download policy trusts only when named.
  const p = new DiscordProvider({
    token: BOT_TOKEN,
    apiRoot: `${discord.origin}/api`,
    mediaTestOrigins: ['https://cdn.discordapp.com', 'https://media.discordapp.net'],
    onError: () => undefined,
    ...options,
  })
  providers.push(p)
  return p
}

async function discordBot(backend: MemoryDurability | AdmitGate = new MemoryDurability(), options: Partial<DiscordProviderOptions> = {}) {
  const p = await provider(options)
  const handled: string[] = []
  const bot = await bots.start({ provider: p, durability: { ...FAST, backend } }, (b) => {
    b.when(TEXT, async (ctx: Context) => {
      handled.push(ctx.message.text!)
      await ctx.reply(`echo: ${ctx.message.text}`)
    })
    b.when(INTERACTION, async (ctx: Context) => void handled.push(`pressed ${ctx.message.interaction!.id}`))
  })
  return { bot, p, handled }
}

describe('DiscordProvider: receiving', () => {
  it('gateway messages in, replies out through the REST API; bots (itself included) are skipped', async () => {
    const { bot, handled } = await discordBot()
    expect(discord.identifies[0]).toMatchObject({ token: BOT_TOKEN, intents: (1 << 9) | (1 << 12) | (1 << 15) })
    discord.dispatch('MESSAGE_CREATE', { ...discordMessage('1300000000000000001', CHANNEL, 'from a bot'), author: { id: '7', bot: true } })
    discord.dispatch('MESSAGE_CREATE', discordMessage('1300000000000000002', CHANNEL, 'hello'))
    await waitFor(() => discord.sent.length === 1)
    await bot.idle()
    expect(handled).toEqual(['hello'])
    expect(discord.sent[0]).toMatchObject({ channelId: CHANNEL, body: { content: 'echo: hello' } })
    expect((await bot.durability!.inbox.list({})).map((r) => r.id)).toEqual([inboxRecordId('discord', CHANNEL, '1300000000000000002')])
  })

  it('a button press over the gateway is acknowledged only after the inbox journaled it; a refused one is not acknowledged', async () => {
    const gate = new AdmitGate(new MemoryDurability())
    const { handled, bot } = await discordBot(gate)
    const held = gate.hold()
    discord.dispatch('INTERACTION_CREATE', buttonPress('1400000000000000001', CHANNEL, 'confirm'))
    await waitFor(() => held.waiting() === 1)
    expect(discord.callbacks).toEqual([])
    held.release()
    await waitFor(() => discord.callbacks.length === 1)
    expect(discord.callbacks[0]).toEqual(['1400000000000000001', { type: 6 }])
    gate.failNext(1)
    discord.dispatch('INTERACTION_CREATE', buttonPress('1400000000000000002', CHANNEL, 'again'))
    await waitFor(() => gate.admits === 1 && discord.callbacks.length === 1)
    await bot.idle()
    expect(handled).toEqual(['pressed confirm'])
  })

  it('the interactions endpoint: a bad Ed25519 signature is 401 and journals nothing; a ping is ponged; a press is answered after the journal', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519')
    const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url').toString('hex')
    const { p, bot, handled } = await discordBot(new MemoryDurability(), {
      gateway: false,
      interactions: { port: 0, host: '127.0.0.1', publicKey: raw, clock: () => 1_700_000_000_000 },
    })
    const post = (body: object, key = privateKey, timestamp = '1700000000') => {
      const text = JSON.stringify(body)
      const signature = sign(null, Buffer.from(timestamp + text), key).toString('hex')
      return fetch(`${p.interactionsOrigin}/interactions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-signature-ed25519': signature, 'x-signature-timestamp': timestamp },
        body: text,
      })
    }
    const press = buttonPress('1400000000000000003', CHANNEL, 'yes')
    expect((await post(press, generateKeyPairSync('ed25519').privateKey)).status).toBe(401)
    const unsigned = await fetch(`${p.interactionsOrigin}/interactions`, { method: 'POST', body: JSON.stringify(press) })
    expect(unsigned.status).toBe(401)
    expect(await bot.durability!.inbox.list({})).toEqual([])
    expect(await (await post({ id: '1', type: 1, token: 't' })).json()).toEqual({ type: 1 })
    const answer = await post(press)
    expect([answer.status, await answer.json()]).toEqual([200, { type: 6 }])
    expect((await bot.durability!.inbox.list({})).map((r) => r.id)).toEqual([inboxRecordId('discord', CHANNEL, '1400000000000000003')])
    await bot.idle()
    expect(handled).toEqual(['pressed yes'])
  })
})

describe('DiscordProvider: sends', () => {
  it('content split by the bot at 2000, buttons in rows of five, an upload, an image embed; refuses what Discord cannot carry', async () => {
    const p = await provider({ gateway: false })
    const bot = await bots.start({ provider: p, durability: { ...FAST } })
    await bot.send(CHANNEL, 'y'.repeat(2100))
    expect(discord.contents().map((c) => c.length)).toEqual([2000, 100])
    await p.send(CHANNEL, { text: 'Pick', buttons: Array.from({ length: 6 }, (_, i) => ({ id: `b${i}`, title: `B${i}` })) })
    expect((discord.sent[2]!.body.components as { components: unknown[] }[]).map((row) => row.components.length)).toEqual([5, 1])
    await p.send(CHANNEL, { media: { type: 'document', buffer: Buffer.from('%PDF'), fileName: 'a.pdf' }, caption: 'your invoice' })
    expect(discord.sent[3]).toMatchObject({
      body: { content: 'your invoice', attachments: [{ id: 0, filename: 'a.pdf' }] },
      files: [{ name: 'a.pdf', bytes: Buffer.from('%PDF') }],
    })
    await p.send(CHANNEL, { media: { type: 'image', url: 'https://example.com/a.png' } })
    expect(discord.sent[4]!.body).toEqual({ embeds: [{ image: { url: 'https://example.com/a.png' } }] })
    const before = discord.requests.length
    expect(await p.send(CHANNEL, 'z'.repeat(2001)).catch((e: Error) => e)).toBeInstanceOf(PayloadTooLargeError)
    expect(await p.send(CHANNEL, {}).catch((e: Error) => e)).toBeInstanceOf(UnsupportedContentError)
    expect(discord.requests.length).toBe(before)
  })

  const cases: [string, DiscordFailure, new (...args: never[]) => Error, Record<string, unknown>][] = [
    [
      'a rate limit (429, retry_after)',
      { status: 429, body: { code: 0, message: 'You are being rate limited.', retry_after: 2.5, global: false } },
      RateLimitedError,
      { retryAfterMs: 3050 },
    ],
    [
      'cannot send messages to this user (50007)',
      { status: 403, body: { code: 50007, message: 'Cannot send messages to this user' } },
      RecipientUnreachableError,
      { retryable: false },
    ],
    ['an unknown channel (10003)', { status: 404, body: { code: 10003, message: 'Unknown Channel' } }, RecipientUnreachableError, {}],
    ['missing permissions (50013)', { status: 403, body: { code: 50013, message: 'Missing Permissions' } }, RecipientUnreachableError, {}],
    [
      'request entity too large (40005)',
      { status: 413, body: { code: 40005, message: 'Request entity too large' } },
      PayloadTooLargeError,
      {},
    ],
    [
      'an empty message (50006)',
      { status: 400, body: { code: 50006, message: 'Cannot send an empty message' } },
      UnsupportedContentError,
      {},
    ],
    [
      'a bad token',
      { status: 401, body: { code: 0, message: '401: Unauthorized' } },
      ChannelApiError,
      { code: 'CHANNEL_UNAUTHORIZED', retryable: false },
    ],
    [
      'a server error',
      { status: 502, body: { code: 0, message: 'Bad Gateway' } },
      ChannelApiError,
      { code: 'CHANNEL_SERVER_ERROR', retryable: true },
    ],
  ]
  it.each(cases)('a REST failure: %s', async (_name, failure, type, fields) => {
    const p = await provider({ gateway: false })
    discord.failNext(failure)
    const error = await p.send(CHANNEL, 'hello').catch((e: Error) => e)
    expect(error).toBeInstanceOf(type)
    expect(error).toMatchObject(fields)
    expect((error as Error).message).not.toContain(BOT_TOKEN)
  })

  it('through a durable bot: a rate limit is honoured, a blocked recipient is dead-lettered after one call; no driver, no transport', async () => {
    const p = await provider({ gateway: false })
    const dead: { error: { code?: string } | null }[] = []
    const bot = await bots.start({ provider: p, durability: { ...FAST, backend: new MemoryDurability() } }, (b) =>
      b.on('durability:dead', (info) => dead.push(info)),
    )
    // Retry-After is whole seconds; the REST client adds its 50 ms offset.
    discord.failNext({ status: 429, body: { code: 0, message: 'You are being rate limited.', retry_after: 0.2, global: false } })
    const started = Date.now()
    await bot.send(CHANNEL, 'after the limit')
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000)
    discord.failNext({ status: 403, body: { code: 50007, message: 'Cannot send messages to this user' } })
    await expect(bot.send(CHANNEL, 'blocked')).rejects.toThrow()
    await waitFor(() => dead.length === 1)
    expect(dead[0]!.error).toMatchObject({ code: 'RECIPIENT_UNREACHABLE' })
    expect(discord.contents()).toEqual(['after the limit'])
    expect(() => new DiscordProvider({ token: '' })).toThrow(ProviderConfigError)
    expect(() => new DiscordProvider({ token: 't', interactions: { port: 0, publicKey: 'xyz' } })).toThrow(ProviderConfigError)
  })
})

it('a crash after an attachment was journaled: the restart replays it, downloads it from the CDN by its journaled URL, replies once', async () => {
  const file = 'https://cdn.discordapp.com/attachments/900000000000000001/1500000000000000001/photo.png?ex=6650&is=664f&hm=ab12'
  const cdn = await new FakeCdn(['discordapp.com', 'discordapp.net']).start()
  cdn.install()
  try {
    cdn.files.set(file, { bytes: Buffer.from('the photo'), mime: 'image/png' })
    discord = await new FakeDiscord().start()
    const store = new SQLiteStore({ file: join(dir, 'discord.db') })
    const backend = store.durability()
    const seen: (Buffer | undefined)[] = []
    const setup = (b: Bot) =>
      b.when(IMAGE, async (ctx: Context) => {
        seen.push(await loadMediaOf(ctx, { throwOnError: true }))
        await ctx.reply('thanks for the photo')
      })
    const a = crashable(backend).crashBefore('outbox.journal')
    const first = await bots.start({ provider: await provider(), store, durability: { ...FAST, backend: a, instanceId: 'd-1' } }, setup)
    const attachment = {
      id: '1500000000000000001',
      filename: 'photo.png',
      size: 9,
      url: file,
      proxy_url: file.replace('cdn.', 'media.').replace('.com', '.net'),
      content_type: 'image/png',
    }
    discord.dispatch('MESSAGE_CREATE', discordMessage('1300000000000000009', CHANNEL, '', [attachment]))
    await a.whenCrashed()
    bots.abandon(first)
    await providers[0]!.stop()
    const second = await bots.start({ provider: await provider(), store, durability: { ...FAST, backend, instanceId: 'd-1' } }, setup)
    const id = inboxRecordId('discord', CHANNEL, '1300000000000000009')
    await waitFor(async () => (await second.durability!.inbox.get(id))?.state === 'done')
    expect(seen).toEqual([Buffer.from('the photo'), Buffer.from('the photo')])
    expect(discord.contents()).toEqual(['thanks for the photo'])
    const record = await second.durability!.inbox.get(id)
    expect(record!.event).toMatchObject({ media: { type: 'image', stored: { provider: 'discord', v: 1, data: { url: file } } } })
    expect(JSON.stringify(record)).not.toContain(BOT_TOKEN)
  } finally {
    await cdn.stop()
  }
})
