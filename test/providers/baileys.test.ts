/**
 * The Baileys (WhatsApp Web) transport through the library, its socket replaced by a double of the
 * library's own shapes (fixtures/fake-whatsapp-web.ts) and WhatsApp's media CDN by a local HTTPS
 * server holding media the library encrypted: a read receipt only once the inbox journaled the
 * message (a refused admit handed to the journal again); sends built by the library (text split
 * by the bot, media encrypted and uploaded, buttons refused); the server's refusals as the
 * outbox's classes; media downloaded and decrypted, an expired file re-requested from the phone,
 * view-once media not journaled unless asked; and the end-to-end run through a durable Bot.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { downloadMediaMessage } from 'baileys'
import { afterEach, describe, expect, it } from 'vitest'
import { MemoryDurability } from '../../src/core/index.js'
import { IMAGE, INTERACTION, TEXT } from '../../src/core/bot/matchers.js'
import { loadMediaOf } from '../../src/core/provider/media.js'
import { RateLimitedError, RecipientUnreachableError, UnsupportedContentError } from '../../src/core/provider/provider-errors.js'
import { inboxRecordId } from '../../src/core/durability/outbox/keys.js'
import { BaileysProvider, type BaileysProviderOptions } from '../../src/providers/baileys/index.js'
import { ChannelApiError } from '../../src/providers/shared/errors.js'
import { waitFor } from '../../test-utils/wait.js'
import { AdmitGate } from './admit-gate.js'
import { durableChannelSuite } from './durable-channel.js'
import { FakeWhatsAppWeb, GROUP, PERSON, authSecrets, memoryAuthState } from './fixtures/fake-whatsapp-web.js'
import { FAST, useBots } from './harness.js'

const bots = useBots()
let fake: FakeWhatsAppWeb | undefined
const providers: BaileysProvider[] = []
afterEach(async () => {
  await Promise.all(providers.splice(0).map((p) => p.stop()))
  await fake?.stop()
  fake = undefined
})

/** Where the fake WhatsApp CDN serves media (routed to 127.0.0.1 by `FakeCdn.install`). */
const CDN_ORIGIN = 'https://mmg.whatsapp.net'

async function provider(options: Partial<BaileysProviderOptions> = {}): Promise<BaileysProvider> {
  fake ??= await new FakeWhatsAppWeb().start()
  // The fake CDN answers for mmg.whatsapp.net on 127.0.0.1: an origin the download policy trusts only when named.
  const p = new BaileysProvider({
    auth: memoryAuthState(),
    socket: fake.makeSocket,
    mediaTestOrigins: [CDN_ORIGIN],
    onError: () => undefined,
    ...options,
  })
  providers.push(p)
  return p
}

async function baileysBot(backend: MemoryDurability | AdmitGate = new MemoryDurability(), options: Partial<BaileysProviderOptions> = {}) {
  const p = await provider(options)
  const handled: string[] = []
  const media: (Buffer | undefined)[] = []
  const bot = await bots.start({ provider: p, durability: { ...FAST, backend } }, (b) => {
    b.when(IMAGE, async (ctx) => {
      media.push(await loadMediaOf(ctx, { throwOnError: true }))
      await ctx.reply('got the image')
    })
    b.when(TEXT, async (ctx) => {
      handled.push(ctx.message.text!)
      await ctx.reply(`echo: ${ctx.message.text}`)
    })
    b.when(INTERACTION, async (ctx) => void handled.push(`pressed ${ctx.message.interaction!.id}`))
  })
  return { bot, p, handled, media, fake: fake! }
}

const readIds = () => fake!.reads.map((key) => key.id)

describe('BaileysProvider: receiving', () => {
  it('a message is read-receipted only once the inbox journaled it; a refused admit is handed to the journal again', async () => {
    const gate = new AdmitGate(new MemoryDurability())
    const { handled, fake, bot } = await baileysBot(gate)
    const held = gate.hold()
    fake.deliver(fake.textMessage('3EB0A1', 'hello', GROUP, PERSON))
    await waitFor(() => held.waiting() === 1)
    expect(fake.reads).toEqual([])
    held.release()
    await waitFor(() => readIds().length === 1)
    expect(fake.reads[0]).toMatchObject({ id: '3EB0A1', remoteJid: GROUP, participant: PERSON })
    gate.failNext(1)
    fake.deliver(fake.textMessage('3EB0A2', 'again'))
    await waitFor(() => readIds().includes('3EB0A2'), { timeoutMs: 10_000, message: 'the refused admit was handed to the journal again' })
    expect(gate.admits).toBe(2)
    await waitFor(() => fake.texts().length === 2)
    await bot.idle()
    expect(handled).toEqual(['hello', 'again'])
    expect(fake.sent.map((s) => s.jid)).toEqual([GROUP, PERSON])
  })

  it('skips the bot’s own messages, history (append) and status updates; a pressed button is an interaction; no receipts when turned off', async () => {
    const { bot, handled, fake } = await baileysBot(new MemoryDurability(), { readReceipts: false })
    const own = fake.textMessage('OWN1', 'mine')
    own.key.fromMe = true
    const status = fake.textMessage('ST1', 'a story', 'status@broadcast', PERSON)
    fake.deliver(own, status)
    fake.open!.ev.emit('messages.upsert', { messages: [fake.textMessage('OLD1', 'from history')], type: 'append' })
    const press = fake.textMessage('BTN1', '')
    press.message = { buttonsResponseMessage: { selectedButtonId: 'confirm', selectedDisplayText: 'Yes' } }
    fake.deliver(press)
    await waitFor(() => handled.length === 1)
    await bot.idle()
    expect(handled).toEqual(['pressed confirm'])
    expect((await bot.durability!.inbox.list({})).map((r) => r.id)).toEqual([inboxRecordId('baileys', PERSON, 'BTN1')])
    expect(fake.reads).toEqual([])
  })
})

describe('BaileysProvider: sends', () => {
  it('texts split by the bot at 4096; media encrypted and uploaded by the library; a phone number as a chat; buttons refused before any call', async () => {
    const { bot, p, fake } = await baileysBot()
    await bot.send(GROUP, 'y'.repeat(5000))
    expect(fake.texts().map((t) => t.length)).toEqual([4096, 904])
    const photo = Buffer.from('a photo, encrypted on its way')
    await p.send('+15550000002', { media: { type: 'image', buffer: photo, mimeType: 'image/jpeg' }, caption: 'look' })
    await p.send(PERSON, {
      media: { type: 'document', buffer: Buffer.from('%PDF-1.4'), fileName: 'invoice.pdf', mimeType: 'application/pdf' },
    })
    const [image, document] = fake.sent.slice(2)
    expect(image!.jid).toBe(PERSON)
    expect(image!.message.message?.imageMessage).toMatchObject({ caption: 'look', mimetype: 'image/jpeg' })
    expect(await downloadMediaMessage(image!.message, 'buffer', {})).toEqual(photo)
    expect(document!.message.message?.documentMessage).toMatchObject({ fileName: 'invoice.pdf', mimetype: 'application/pdf' })
    const before = fake.sendTimes.length
    const buttons = { text: 'Pick', buttons: [{ id: 'a', title: 'A' }] }
    expect(await p.send(PERSON, buttons).catch((e: unknown) => e)).toBeInstanceOf(UnsupportedContentError)
    expect(await p.send('not a chat', 'x').catch((e: unknown) => e)).toBeInstanceOf(RecipientUnreachableError)
    expect(fake.sendTimes.length).toBe(before)
  })

  it('the server’s refusals as the outbox’s classes: rate-overlimit waits, item-not-found and forbidden are final, a closed connection retries', async () => {
    const { p, fake } = await baileysBot(new MemoryDurability(), { rateLimitRetryAfterMs: 7_000 })
    fake.refuseNext('rate-overlimit')
    const limited = await p.send(GROUP, 'x').catch((e: unknown) => e)
    expect(limited).toBeInstanceOf(RateLimitedError)
    expect((limited as RateLimitedError).retryAfterMs).toBe(7_000)
    for (const text of ['item-not-found', 'forbidden'] as const) {
      fake.refuseNext(text)
      const refused = await p.send(GROUP, 'x').catch((e: unknown) => e)
      expect(refused).toBeInstanceOf(RecipientUnreachableError)
      expect((refused as Error).message).toContain(text)
    }
    const open = fake.open!
    open.isOpen = false
    const closed = await p.send(GROUP, 'x').catch((e: unknown) => e)
    expect(closed).toBeInstanceOf(ChannelApiError)
    expect(closed).toMatchObject({ code: 'CHANNEL_NETWORK', retryable: true, status: 428 })
  })
})

describe('BaileysProvider: media', () => {
  it('a CDN answer redirecting off the CDN (to an internal server), or more than 3 times, is refused; the internal server is never asked', async () => {
    const p = await provider()
    const asked: string[] = []
    const internal = createServer((req, res) => void (asked.push(req.url ?? ''), res.end('ami-id')))
    await new Promise<void>((resolve) => internal.listen(0, '127.0.0.1', resolve))
    try {
      const message = await fake!.imageMessage('IMG9', Buffer.from('a photo'))
      const url = `https://mmg.whatsapp.net${message.message!.imageMessage!.directPath}`
      fake!.cdn.redirects.set(url, `http://127.0.0.1:${(internal.address() as AddressInfo).port}/latest/meta-data/`)
      const off = await p.download({ type: 'image', token: message }).catch((e: unknown) => e)
      expect(off).toMatchObject({ code: 'MEDIA_UNAVAILABLE', reason: 'download-refused', refusal: 'url' })
      for (let i = 0; i < 4; i++) fake!.cdn.redirects.set(i === 0 ? url : `${url}&hop=${i}`, `${url}&hop=${i + 1}`)
      const loop = await p.download({ type: 'image', token: message }).catch((e: unknown) => e)
      expect(loop).toMatchObject({ code: 'MEDIA_UNAVAILABLE', refusal: 'redirects' })
      expect(asked).toEqual([])
    } finally {
      await new Promise<void>((resolve) => internal.close(() => resolve()))
    }
  })

  it('an expired CDN file is re-requested from the sender’s phone, live and again on a replay from the journal', async () => {
    const { bot, fake, media } = await baileysBot()
    const photo = Buffer.from('an old photo')
    const message = await fake.imageMessage('IMG1', photo, { expired: true })
    const firstUrl = `https://mmg.whatsapp.net${message.message!.imageMessage!.directPath}`
    fake.deliver(message)
    await waitFor(() => fake.texts().length === 1)
    await bot.idle()
    expect(media).toEqual([photo])
    expect(fake.retryRequests).toHaveLength(1)
    expect(fake.retryRequests[0]).toMatchObject({ tag: 'receipt', attrs: { id: 'IMG1', type: 'server-error' } })
    expect(fake.cdn.requested[0]).toBe(firstUrl)
    expect(fake.cdn.requested[1]).toContain('oh=01_renewed')
    // The operator replays it: the journaled reference names the first (expired) path, asked for again.
    const id = inboxRecordId('baileys', PERSON, 'IMG1')
    await bot.durability!.replayInbound(id)
    await waitFor(() => media.length === 2)
    await bot.idle()
    expect(media).toEqual([photo, photo])
    expect(fake.retryRequests).toHaveLength(2)
  })

  it('view-once media is not journaled unless durableMedia.viewOnce; the live run still downloads it', async () => {
    for (const viewOnce of [false, true]) {
      const { bot, fake: double, media } = await baileysBot(new MemoryDurability(), viewOnce ? { durableMedia: { viewOnce: true } } : {})
      double.deliver(await double.imageMessage(`VO${viewOnce}`, Buffer.from('once'), { viewOnce: true }))
      await waitFor(() => media.length === 1)
      await bot.idle()
      expect(media).toEqual([Buffer.from('once')])
      const record = await bot.durability!.inbox.get(inboxRecordId('baileys', PERSON, `VO${viewOnce}`))
      const stored = (record!.event as { media: { stored: unknown } }).media.stored
      if (viewOnce) expect(stored).toMatchObject({ provider: 'baileys', v: 1, data: { kind: 'imageMessage' } })
      else expect(stored).toBeNull()
      await bot.stop()
      await Promise.all(providers.splice(0).map((p) => p.stop()))
      await double.stop()
      fake = undefined
    }
  })
})

describe('BaileysProvider', () => {
  durableChannelSuite(async () => {
    const double = await new FakeWhatsAppWeb().start()
    const auth = memoryAuthState()
    const read = (id: string) => waitFor(() => double.reads.some((key) => key.id === id), { message: `${id} was read-receipted` })
    return {
      channel: 'baileys',
      chatId: GROUP,
      provider: () =>
        new BaileysProvider({
          auth,
          socket: double.makeSocket,
          mediaTestOrigins: [CDN_ORIGIN],
          rateLimitRetryAfterMs: 1_000,
          onError: () => undefined,
        }),
      async inboundText(_provider, id, text) {
        await waitFor(() => double.open !== undefined)
        double.deliver(double.textMessage(id, text, GROUP, PERSON))
        await read(id)
      },
      async inboundImage(_provider, id, bytes) {
        await waitFor(() => double.open !== undefined)
        double.deliver(await double.imageMessage(id, bytes, { chat: GROUP }))
        await read(id)
      },
      eventId: (id) => id,
      sentTexts: () => double.texts(),
      sendTimes: () => double.sendTimes,
      rateLimitNext(seconds) {
        // WhatsApp names no time: the provider waits its rateLimitRetryAfterMs, set to 1 s above.
        if (seconds !== 1) throw new Error('this rig waits 1 s on a rate limit')
        double.refuseNext('rate-overlimit')
      },
      finalErrorNext: () => double.refuseNext('item-not-found'),
      finalErrorCode: 'RECIPIENT_UNREACHABLE',
      secrets: authSecrets(auth),
      stop: () => double.stop(),
    }
  })
})
