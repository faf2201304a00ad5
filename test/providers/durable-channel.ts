/**
 * The end-to-end run every channel provider passes through a durable Bot, against its channel's
 * double: an inbound message in and its reply out; a crash in the handler and a restart that
 * replies once; a media message replayed after a crash that downloads its media again from the
 * journaled reference; a text over the channel's textLimit sent in parts it takes; a rate limit
 * honoured (the retry waits the channel's time); a final error dead-lettered after one call. A channel's test file gives a rig and calls `durableChannelSuite`.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { SQLiteStore } from '../../src/backends/sqlite/index.js'
import type { Bot } from '../../src/core/bot/bot.js'
import { inboxRecordId } from '../../src/core/durability/outbox/keys.js'
import { MemoryDurability } from '../../src/core/index.js'
import { IMAGE, TEXT } from '../../src/core/bot/matchers.js'
import { loadMediaOf } from '../../src/core/provider/media.js'
import type { IProvider } from '../../src/core/provider/provider.js'
import { crashable } from '../../src/testing/crashable.js'
import { waitFor } from '../../test-utils/wait.js'
import { FAST, useBots } from './harness.js'

/** A channel's double and how to drive it. */
export interface ChannelRig {
  /** The provider's `name`. */
  readonly channel: string
  /** The chat the double's inbound messages come from. */
  readonly chatId: string
  /** A new provider against the double (each process of a restart builds its own). */
  provider(): IProvider
  /** Delivers an inbound text the channel's way; resolves once the channel was answered (it throws if it was not 2xx). */
  inboundText(provider: IProvider, id: string, text: string): Promise<void>
  /** Delivers an inbound image with `bytes` behind it; resolves once the channel was answered. */
  inboundImage(provider: IProvider, id: string, bytes: Buffer): Promise<void>
  /** The event id the provider gives inbound message `id`. */
  eventId(id: string): string
  /** Texts the channel accepted, in order. */
  sentTexts(): string[]
  /** When each send call reached the channel (ms), accepted or not. */
  sendTimes(): number[]
  /** The next send is refused as rate-limited, naming `retryAfterSeconds`. */
  rateLimitNext(retryAfterSeconds: number): void
  /** The next send fails with the channel's final error for an unreachable recipient, or a closed window. */
  finalErrorNext(): void
  /** The contract's code that final error maps to. */
  readonly finalErrorCode: string
  /** Strings that must never reach the journal. */
  readonly secrets: readonly string[]
  stop(): Promise<void>
}

/** Registers the end-to-end cases for the rig `makeRig` builds (one rig a test). */
export function durableChannelSuite(makeRig: () => Promise<ChannelRig>): void {
  const bots = useBots()
  const dir = mkdtempSync(join(tmpdir(), 'botmesh-channel-'))
  const providers: IProvider[] = []
  let rig: ChannelRig | undefined
  let files = 0
  afterEach(async () => {
    // A crashed bot is never stopped: its provider (a webhook server, a poller) is stopped here.
    await Promise.all(providers.splice(0).map((p) => p.stop()))
    await rig?.stop()
    rig = undefined
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  async function started(): Promise<ChannelRig> {
    rig = await makeRig()
    return rig
  }
  function provider(): IProvider {
    const p = rig!.provider()
    providers.push(p)
    return p
  }
  function echo(seen: (Buffer | undefined)[]) {
    return (bot: Bot) => {
      bot.when(IMAGE, async (ctx) => {
        seen.push(await loadMediaOf(ctx, { throwOnError: true }))
        await ctx.reply('got the image')
      })
      bot.when(TEXT, async (ctx) => void (await ctx.reply(`echo: ${ctx.message.text}`)))
    }
  }
  function sqlite(): SQLiteStore {
    return new SQLiteStore({ file: join(dir, `bot-${++files}.db`) })
  }

  describe('end to end through a durable Bot', () => {
    it('an inbound message is journaled, handled and answered', async () => {
      const r = await started()
      const p = provider()
      const bot = await bots.start({ provider: p, durability: { ...FAST, backend: new MemoryDurability() } }, echo([]))
      await r.inboundText(p, 'in-1', 'hello')
      await waitFor(() => r.sentTexts().length === 1)
      await bot.idle()
      expect(r.sentTexts()).toEqual(['echo: hello'])
      const record = await bot.durability!.inbox.get(inboxRecordId(r.channel, r.chatId, r.eventId('in-1')))
      expect(record?.state).toBe('done')
    })

    it('a crash in the handler: the restart replays the message and replies once', async () => {
      const r = await started()
      const store = sqlite()
      const backend = store.durability()
      const a = crashable(backend).crashBefore('outbox.journal')
      const first = await bots.start({ provider: provider(), store, durability: { ...FAST, backend: a, instanceId: 'i1' } }, echo([]))
      await r.inboundText(providers.at(-1)!, 'in-2', 'are you there?')
      await a.whenCrashed()
      bots.abandon(first)
      expect(r.sentTexts()).toEqual([])
      const second = await bots.start({ provider: provider(), store, durability: { ...FAST, backend, instanceId: 'i1' } }, echo([]))
      const id = inboxRecordId(r.channel, r.chatId, r.eventId('in-2'))
      await waitFor(async () => (await second.durability!.inbox.get(id))?.state === 'done')
      await second.idle()
      expect(r.sentTexts()).toEqual(['echo: are you there?'])
    })

    it('a media message replayed after a crash downloads its media again from the journaled reference', async () => {
      const r = await started()
      const store = sqlite()
      const backend = store.durability()
      const seen: (Buffer | undefined)[] = []
      const a = crashable(backend).crashBefore('outbox.journal')
      const first = await bots.start({ provider: provider(), store, durability: { ...FAST, backend: a, instanceId: 'i1' } }, echo(seen))
      await r.inboundImage(providers.at(-1)!, 'in-3', Buffer.from('the photo'))
      await a.whenCrashed()
      bots.abandon(first)
      const second = await bots.start({ provider: provider(), store, durability: { ...FAST, backend, instanceId: 'i1' } }, echo(seen))
      const id = inboxRecordId(r.channel, r.chatId, r.eventId('in-3'))
      await waitFor(async () => (await second.durability!.inbox.get(id))?.state === 'done')
      await second.idle()
      expect(seen).toEqual([Buffer.from('the photo'), Buffer.from('the photo')])
      expect(r.sentTexts()).toEqual(['got the image'])
      const record = await second.durability!.inbox.get(id)
      expect(record!.event).toMatchObject({ media: { type: 'image', stored: { provider: r.channel, v: 1 } } })
      for (const secret of r.secrets) expect(JSON.stringify(record)).not.toContain(secret)
    })

    it("a text over the channel's textLimit goes out in order, in parts the channel takes", async () => {
      const r = await started()
      const p = provider()
      const limit = p.textLimit!
      const bot = await bots.start({ provider: p, durability: { ...FAST, backend: new MemoryDurability() } })
      const words = Array.from({ length: Math.ceil((limit * 1.5) / 7) }, (_, n) => `w${String(n).padStart(5, '0')}`)
      await bot.send(r.chatId, words.join(' '))
      const parts = r.sentTexts()
      expect(parts.length).toBe(2)
      for (const part of parts) expect(Array.from(part.trimEnd()).length).toBeLessThanOrEqual(limit)
      expect(parts.join(' ').split(/\s+/).filter(Boolean)).toEqual(words)
    })

    it("a rate limit is honoured: the retry waits the channel's time, then the reply goes out once", async () => {
      const r = await started()
      const bot = await bots.start({
        provider: provider(),
        durability: { ...FAST, outbox: { ...FAST.outbox, inlineMaxMs: 30_000 }, backend: new MemoryDurability() },
      })
      r.rateLimitNext(1)
      await bot.send(r.chatId, 'after the limit')
      expect(r.sentTexts()).toEqual(['after the limit'])
      const [refused, accepted] = r.sendTimes()
      // A timer never fires early by more than the clock's rounding; a loaded machine only makes it later.
      expect(accepted! - refused!).toBeGreaterThanOrEqual(990)
    })

    it('a final error is dead-lettered after one call', async () => {
      const r = await started()
      const dead: { kind: string; error: { code?: string } | null }[] = []
      const bot = await bots.start({ provider: provider(), durability: { ...FAST, backend: new MemoryDurability() } }, (b) =>
        b.on('durability:dead', (info) => dead.push(info)),
      )
      r.finalErrorNext()
      await expect(bot.send(r.chatId, 'too late', { idempotencyKey: 'final:1' })).rejects.toThrow()
      await waitFor(() => dead.length === 1)
      await bot.idle()
      expect(dead[0]).toMatchObject({ kind: 'outbox', error: { code: r.finalErrorCode } })
      expect((await bot.durability!.outbox.get('final:1'))?.state).toBe('dead')
      expect(r.sendTimes()).toHaveLength(1)
      expect(r.sentTexts()).toEqual([])
    })
  })
}
