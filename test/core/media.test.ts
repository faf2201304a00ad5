/**
 * The seed's "Media on replay", the engine side, with MockProvider: inbox.mediaRefs, the provider's
 * serializeMediaRef / rehydrateMediaRef around the journal, records written without a reference,
 * loadMediaOf with and without throwOnError, and MediaUnavailableError's three reasons.
 */
import { describe, expect, it } from 'vitest'
import { MemoryDurability } from '../../src/core/index.js'
import type { Bot } from '../../src/core/bot/bot.js'
import type { Context } from '../../src/core/bot/context.js'
import type { Json } from '../../src/core/durability/journal/kv.js'
import type { InboxRecord } from '../../src/core/durability/journal/records.js'
import { IMAGE } from '../../src/core/bot/matchers.js'
import { loadMediaOf } from '../../src/core/provider/media.js'
import { MediaUnavailableError, ProviderError } from '../../src/core/provider/provider-errors.js'
import type { InboundEvent } from '../../src/core/provider/provider.js'
import { MemoryStore } from '../../src/core/store/store.js'
import { crashable } from '../../src/testing/crashable.js'
import { CrashableProvider } from '../../src/testing/crashable-provider.js'
import { MockProvider } from '../../src/testing/mock-provider.js'
import { waitFor } from '../../test-utils/wait.js'
import { fast, recordId, useBots, type TestBot } from './helpers.js'

const bots = useBots()
const BYTES = Buffer.from('png bytes')

/** A live, non-serializable token, like Baileys' original WhatsApp message. */
class LiveMessage {
  constructor(
    readonly id: string,
    readonly socket = { send() {} },
  ) {}
}

/** What the handler saw of each run. */
interface Seen {
  replayed: boolean
  token: unknown
  media: Buffer | undefined
  error: unknown
}

/** An IMAGE handler that records the token, what loadMediaOf gives, and what it throws with throwOnError. */
function imageHandler(seen: Seen[]) {
  return (bot: Bot) =>
    bot.when(IMAGE, async (ctx: Context) => {
      const media = await loadMediaOf(ctx)
      const error = await loadMediaOf(ctx, { throwOnError: true }).then(
        () => undefined,
        (e: unknown) => e,
      )
      seen.push({ replayed: seen.length > 0, token: ctx.message.media?.token, media, error })
      await ctx.reply(media ? 'got it' : 'Please send the image again.')
    })
}

function withMedia(provider: MockProvider): MockProvider {
  provider.media.set('img-1', BYTES)
  provider.media.set('v1', BYTES)
  return provider
}

const image = (token: unknown): InboundEvent => ({ id: 'm1', chatId: 'c1', media: { type: 'image', token, mimeType: 'image/png' } })

/** Receives the event, then replays it as an operator would; resolves once both runs are done. */
async function receiveAndReplay(t: TestBot, event: InboundEvent, seen: Seen[]): Promise<void> {
  await t.provider.receive(event)
  await waitFor(() => seen.length === 1)
  const id = recordId(event.id, event.chatId)
  await waitFor(async () => (await t.bot.durability!.inbox.get(id))?.state === 'done')
  await t.bot.durability!.replayInbound(id)
  await waitFor(() => seen.length === 2)
  await t.bot.idle()
}

describe('inbox.mediaRefs', () => {
  it('`true` (default): the inbox journals the provider’s serializable, versioned reference instead of the live object', async () => {
    const seen: Seen[] = []
    const t = await bots.start({ provider: withMedia(new MockProvider()), durability: fast(), setup: imageHandler(seen) })
    await t.provider.receive(image(new LiveMessage('img-1')))
    await waitFor(() => seen.length === 1)
    const record = (await t.bot.durability!.inbox.get(recordId('m1')))!
    expect(record.event).toEqual({
      id: 'm1',
      chatId: 'c1',
      media: { type: 'image', mimeType: 'image/png', stored: { provider: 'mock', v: 1, data: { id: 'img-1' } } },
    })
    // The live message is handled with its live token.
    expect(seen[0]!.token).toBeInstanceOf(LiveMessage)
    expect(seen[0]!.media).toEqual(BYTES)
  })

  it('`false` journals media tokens as before; a replayed message may then be unable to download its media', async () => {
    const seen: Seen[] = []
    const t = await bots.start({
      provider: withMedia(new MockProvider()),
      durability: fast({ inbox: { mediaRefs: false } }),
      setup: imageHandler(seen),
    })
    await receiveAndReplay(t, image('img-1'), seen)
    expect((await t.bot.durability!.inbox.get(recordId('m1')))!.event).toMatchObject({ media: { type: 'image', token: 'img-1' } })
    expect((await t.bot.durability!.inbox.get(recordId('m1')))!.event).not.toHaveProperty('media.stored')
    expect(seen[1]).toMatchObject({ token: 'img-1', media: BYTES, error: undefined })

    // A live object as token cannot be journaled: its replay cannot download.
    const liveSeen: Seen[] = []
    const live = await bots.start({
      provider: withMedia(new MockProvider()),
      durability: fast({ inbox: { mediaRefs: false } }),
      setup: imageHandler(liveSeen),
    })
    await receiveAndReplay(live, image(new LiveMessage('img-1')), liveSeen)
    expect(liveSeen[0]!.media).toEqual(BYTES)
    expect(liveSeen[1]!.media).toBeUndefined()
    expect(liveSeen[1]!.error).toBeInstanceOf(ProviderError)
  })
})

describe('serializeMediaRef / rehydrateMediaRef around the journal', () => {
  it('an operator’s replayInbound: the provider rebuilds the reference before the handler runs, so the media downloads as it would for a live message', async () => {
    const seen: Seen[] = []
    const t = await bots.start({ provider: withMedia(new MockProvider()), durability: fast(), setup: imageHandler(seen) })
    await receiveAndReplay(t, image(new LiveMessage('img-1')), seen)
    expect(seen[1]).toMatchObject({ token: { id: 'img-1', live: false }, media: BYTES, error: undefined })
    expect(t.provider.texts()).toEqual(['got it'])
  })

  it('a replay after a crash', async () => {
    const shared = new MemoryDurability()
    const store = new MemoryStore()
    const a = crashable(shared).crashBefore('outbox.journal')
    const seen: Seen[] = []
    const first = await bots.start({
      provider: withMedia(new CrashableProvider(a)),
      store,
      durability: fast({ backend: a, instanceId: 'i1' }),
      setup: imageHandler(seen),
    })
    await first.provider.receive(image(new LiveMessage('img-1')))
    await a.whenCrashed()
    bots.abandon(first)
    const second = await bots.start({
      provider: withMedia(new MockProvider()),
      store,
      durability: fast({ backend: shared, instanceId: 'i1' }),
      setup: imageHandler(seen),
    })
    await waitFor(async () => (await second.bot.durability!.inbox.get(recordId('m1')))?.state === 'done')
    expect(seen[1]).toMatchObject({ token: { id: 'img-1', live: false }, media: BYTES, error: undefined })
    expect(second.provider.texts()).toEqual(['got it'])
  })

  it('a run again in place (the first run failed before the handler) keeps the live message', async () => {
    const store = new MemoryStore()
    let failures = 1
    const getCheckpoint = store.getCheckpoint.bind(store)
    store.getCheckpoint = async (scope, chatId) => {
      if (failures-- > 0) throw new Error('store down')
      return getCheckpoint(scope, chatId)
    }
    const seen: Seen[] = []
    const t = await bots.start({ provider: withMedia(new MockProvider()), store, durability: fast(), setup: imageHandler(seen) })
    await t.provider.receive(image(new LiveMessage('img-1')))
    await waitFor(() => seen.length === 1)
    // It runs again in its chat's lane, in the same process: the live event is still at hand.
    expect(seen[0]!.token).toBeInstanceOf(LiveMessage)
    expect(seen[0]).toMatchObject({ token: { id: 'img-1' }, media: BYTES })
    expect(t.bot.durability!.metrics().inboundReplayed).toBe(1)
  })

  it('records written without a reference (before this feature) replay as before', async () => {
    const backend = new MemoryDurability()
    const seen: Seen[] = []
    const t = await bots.start({ provider: withMedia(new MockProvider()), durability: fast({ backend }), setup: imageHandler(seen) })
    const now = Date.now()
    const old: InboxRecord = {
      id: 'old-1',
      kind: 'message',
      state: 'pending',
      chatId: 'c1',
      provider: 'mock',
      event: { id: 'old-1', chatId: 'c1', media: { type: 'image', token: 'img-1' } },
      attempts: 0,
      nextAttemptAt: now,
      lease: null,
      fencingToken: 0,
      lastError: null,
      createdAt: now,
      updatedAt: now,
    }
    await backend.journal(t.bot.scope).write('inbox.admit', [{ kind: 'inbox', record: old, expectVersion: 0 }])
    await waitFor(() => seen.length === 1)
    expect(seen[0]).toMatchObject({ token: 'img-1', media: BYTES, error: undefined })
  })
})

describe('loadMediaOf(ctx, { throwOnError })', () => {
  it('downloads a live message’s media; a failed download resolves undefined, or rejects with throwOnError', async () => {
    const seen: Seen[] = []
    const t = await bots.start({ provider: withMedia(new MockProvider()), durability: fast(), setup: imageHandler(seen) })
    await t.provider.receive({ id: 'm1', chatId: 'c1', media: { type: 'image', token: 'img-1' } })
    await t.provider.receive({ id: 'm2', chatId: 'c1', media: { type: 'image', token: 'missing' } })
    await waitFor(() => seen.length === 2)
    expect(seen[0]).toMatchObject({ media: BYTES, error: undefined })
    expect(seen[1]!.media).toBeUndefined()
    expect(seen[1]!.error).toBeInstanceOf(ProviderError)
    expect(seen[1]!.error).not.toBeInstanceOf(MediaUnavailableError)
    expect(seen[1]!.error).toMatchObject({ code: 'MEDIA_NOT_FOUND' })
  })

  it('works the same without durability', async () => {
    const seen: Seen[] = []
    const t = await bots.start({ provider: withMedia(new MockProvider()), setup: imageHandler(seen) })
    await t.provider.receive({ id: 'm1', chatId: 'c1', media: { type: 'image', token: new LiveMessage('img-1') } })
    await t.bot.idle()
    expect(seen[0]).toMatchObject({ media: BYTES, error: undefined })
  })
})

describe('MediaUnavailableError', () => {
  const expectUnavailable = (s: Seen | undefined, reason: string) => {
    expect(s!.media).toBeUndefined()
    expect(s!.error).toBeInstanceOf(MediaUnavailableError)
    expect(s!.error).toBeInstanceOf(ProviderError)
    expect(s!.error).toMatchObject({ code: 'MEDIA_UNAVAILABLE', reason, retryable: false })
  }

  it("`'not-durable'`: the provider did not serialize the reference (view-once, for example); the replayed message still runs", async () => {
    const seen: Seen[] = []
    const t = await bots.start({ provider: withMedia(new MockProvider()), durability: fast(), setup: imageHandler(seen) })
    await receiveAndReplay(t, image({ id: 'v1', viewOnce: true }), seen)
    expect((await t.bot.durability!.inbox.get(recordId('m1')))!.event).toMatchObject({ media: { stored: null } })
    expect(seen[0]!.media).toEqual(BYTES)
    expectUnavailable(seen[1], 'not-durable')
    expect(t.provider.texts()).toEqual(['got it', 'Please send the image again.'])
  })

  it("`'provider-mismatch'`: another provider wrote the record", async () => {
    const shared = new MemoryDurability()
    const store = new MemoryStore()
    const a = crashable(shared).crashBefore('outbox.journal')
    const seen: Seen[] = []
    const first = await bots.start({
      provider: withMedia(new CrashableProvider(a, { name: 'telegram' })),
      store,
      durability: fast({ backend: a, instanceId: 'i1' }),
      setup: imageHandler(seen),
    })
    await first.provider.receive(image('img-1'))
    await a.whenCrashed()
    bots.abandon(first)
    const second = await bots.start({
      provider: withMedia(new MockProvider({ name: 'discord' })),
      store,
      durability: fast({ backend: shared, instanceId: 'i1' }),
      setup: imageHandler(seen),
    })
    await waitFor(() => seen.length === 2)
    expectUnavailable(seen[1], 'provider-mismatch')
    expect((seen[1]!.error as Error).message).toMatch(/written by telegram, not discord/)
    // The record id names the provider that received the event.
    await waitFor(async () => (await second.bot.durability!.inbox.get(recordId('m1', 'c1', 'telegram')))?.state === 'done')
  })

  it("`'rehydrate-failed'`: the stored value is invalid, from an unknown version, or tampered with", async () => {
    for (const stored of [
      { provider: 'mock', v: 99, data: { id: 'img-1' } },
      { provider: 'mock', v: 1, data: { id: 42 } },
      { provider: 'mock', v: 1, data: null },
    ]) {
      const backend = new MemoryDurability()
      const seen: Seen[] = []
      const t = await bots.start({ provider: withMedia(new MockProvider()), durability: fast({ backend }), setup: imageHandler(seen) })
      await t.provider.receive(image('img-1'))
      await waitFor(async () => (await t.bot.durability!.inbox.get(recordId('m1')))?.state === 'done')
      const journal = backend.journal(t.bot.scope)
      const [found] = await journal.read('inbox', [recordId('m1')])
      const tampered = {
        ...found!.record,
        event: { ...(found!.record.event as Record<string, Json>), media: { type: 'image', stored: stored as Json } },
      }
      await journal.write('inbox.claim', [{ kind: 'inbox', record: tampered, expectVersion: found!.version }])
      await t.bot.durability!.replayInbound(recordId('m1'))
      await waitFor(() => seen.length === 2)
      expectUnavailable(seen[1], 'rehydrate-failed')
      expect((seen[1]!.error as MediaUnavailableError).cause, JSON.stringify(stored)).toMatchObject({ code: 'MEDIA_REF_INVALID' })
      await t.bot.stop()
    }
  })

  it("`'rehydrate-failed'`: a rebuilt reference whose media expired server-side (the provider’s download error is the cause)", async () => {
    const seen: Seen[] = []
    const t = await bots.start({ provider: withMedia(new MockProvider()), durability: fast(), setup: imageHandler(seen) })
    await t.provider.receive(image(new LiveMessage('img-1')))
    await waitFor(async () => (await t.bot.durability!.inbox.get(recordId('m1')))?.state === 'done')
    t.provider.media.delete('img-1')
    await t.bot.durability!.replayInbound(recordId('m1'))
    await waitFor(() => seen.length === 2)
    expectUnavailable(seen[1], 'rehydrate-failed')
    expect((seen[1]!.error as MediaUnavailableError).cause).toMatchObject({ code: 'MEDIA_NOT_FOUND' })
  })

  it("`'download-refused'`: a replayed download the provider's download policy refused keeps its own reason", async () => {
    const seen: Seen[] = []
    const t = await bots.start({ provider: withMedia(new MockProvider()), durability: fast(), setup: imageHandler(seen) })
    await t.provider.receive(image(new LiveMessage('img-1')))
    await waitFor(async () => (await t.bot.durability!.inbox.get(recordId('m1')))?.state === 'done')
    t.provider.download = async () => {
      throw new MediaUnavailableError('download-refused', 'mock: the host is not on the allowlist')
    }
    await t.bot.durability!.replayInbound(recordId('m1'))
    await waitFor(() => seen.length === 2)
    expectUnavailable(seen[1], 'download-refused')
  })
})
