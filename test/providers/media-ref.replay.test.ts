/**
 * A replayed message downloads its media as a live one would, on every channel: after a crash
 * (MemoryDurability and SQLite), as a background retry, and by an operator's replayInbound. The
 * journal never holds the live token's credentials, and a stored reference changed in the journal
 * reaches the handler as MediaUnavailableError 'rehydrate-failed' at loadMediaOf time.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { onEngine } from '../../test-utils/engine.js'
import { MemoryDurability } from '../../src/core/index.js'
import { SQLiteStore } from '../../src/backends/sqlite/index.js'
import type { Bot } from '../../src/core/bot/bot.js'
import type { DurabilityBackend } from '../../src/core/durability/journal/backend.js'
import type { Json } from '../../src/core/durability/journal/kv.js'
import { MediaUnavailableError } from '../../src/core/provider/provider-errors.js'
import { inboxRecordId } from '../../src/core/durability/outbox/keys.js'
import type { InboundEvent } from '../../src/core/provider/provider.js'
import { MemoryStore, type Store } from '../../src/core/store/store.js'
import { crashable } from '../../src/testing/crashable.js'
import { CrashableProvider } from '../../src/testing/crashable-provider.js'
import { MockProvider } from '../../src/testing/mock-provider.js'
import { checkOf } from '../../src/providers/shared/codec.js'
import { waitFor } from '../../test-utils/wait.js'
import { CHANNELS, SECRET, type ChannelFixture } from './fixtures/channels.js'
import { mutation } from './fixtures/mutation.js'
import { FAST, recordMedia, speak, useBots, type Seen } from './harness.js'

// These tests arm the message engine's writes, which the steps engine never makes: they run on the
// message engine whatever BOTMESH_ENGINE says (a wrapped backend now runs the engine it would run unwrapped).
onEngine('message')

const bots = useBots()
const dir = mkdtempSync(join(tmpdir(), 'botmesh-providers-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const BYTES = Buffer.from('the media bytes')

/** One live token of the channel, the bytes its download serves, and the event that carries it. */
function scene(f: ChannelFixture, seed: number) {
  const [token] = fc.sample(f.live, { numRuns: 1, seed })
  const bytes = new Map([[f.identity(token), BYTES]])
  const event: InboundEvent = { id: `${f.channel}-m1`, chatId: 'c1', media: { type: f.type, token, mimeType: 'image/jpeg' } }
  return { token, bytes, event }
}

/** The inbox record id of `event` on the channel's provider. */
const recordOf = (f: ChannelFixture, event: InboundEvent) => inboxRecordId(f.channel, event.chatId, event.id)
const done = (bot: Bot, id: string) => waitFor(async () => (await bot.durability!.inbox.get(id))?.state === 'done')

function expectReplayDownloaded(f: ChannelFixture, seen: Seen[], token: unknown): void {
  expect(seen[0]).toMatchObject({ media: BYTES, error: undefined })
  expect(seen[1]).toMatchObject({ media: BYTES, error: undefined })
  // The replay ran with the token the codec rebuilt from the journal, not the live one.
  expect(seen[1]!.token).not.toBe(token)
  expect(f.identity(seen[1]!.token)).toBe(f.identity(token))
}

async function crashAndRestart(f: ChannelFixture, backend: DurabilityBackend, store: Store): Promise<void> {
  const { token, bytes, event } = scene(f, 1)
  const a = crashable(backend).crashBefore('outbox.journal')
  const seen: Seen[] = []
  const first = await bots.start(
    {
      provider: speak(new CrashableProvider(a, { name: f.channel }), f, bytes),
      store,
      durability: { ...FAST, backend: a, instanceId: 'i1' },
    },
    recordMedia(seen),
  )
  await (first.provider as MockProvider).receive(event)
  await a.whenCrashed()
  bots.abandon(first)
  const provider = speak(new MockProvider({ name: f.channel }), f, bytes)
  const second = await bots.start({ provider, store, durability: { ...FAST, backend, instanceId: 'i1' } }, recordMedia(seen))
  await done(second, recordOf(f, event))
  expectReplayDownloaded(f, seen, token)
  expect(provider.texts()).toEqual(['got it'])
}

describe.each(CHANNELS.map((f) => [f.channel, f] as const))('%s through the Bot', (_name, f) => {
  it('a crash, then a restart: the replay downloads the media (MemoryDurability)', async () => {
    await crashAndRestart(f, new MemoryDurability(), new MemoryStore())
  })

  it('a crash, then a restart: the replay downloads the media (SQLite)', async () => {
    const store = new SQLiteStore({ file: join(dir, `${f.channel}.db`) })
    await crashAndRestart(f, store.durability(), store)
  })

  it('a background retry (the first run failed before the handler) downloads the media', async () => {
    const { token, bytes, event } = scene(f, 2)
    const store = new MemoryStore()
    let failures = 1
    const getCheckpoint = store.getCheckpoint.bind(store)
    store.getCheckpoint = async (scope, chatId) => {
      if (failures-- > 0) throw new Error('store down')
      return getCheckpoint(scope, chatId)
    }
    const seen: Seen[] = []
    const bot = await bots.start(
      { provider: speak(new MockProvider({ name: f.channel }), f, bytes), store, durability: { ...FAST } },
      recordMedia(seen),
    )
    await (bot.provider as MockProvider).receive(event)
    await waitFor(() => seen.length === 1)
    expect(seen[0]).toMatchObject({ media: BYTES, error: undefined })
    expect(f.identity(seen[0]!.token)).toBe(f.identity(token))
    expect(bot.durability!.metrics().inboundReplayed).toBe(1)
  })

  it('an operator’s replayInbound downloads the media; the journal never holds the credentials', async () => {
    const { token, bytes, event } = scene(f, 3)
    const backend = new MemoryDurability()
    const seen: Seen[] = []
    const bot = await bots.start(
      { provider: speak(new MockProvider({ name: f.channel }), f, bytes), durability: { ...FAST, backend } },
      recordMedia(seen),
    )
    await (bot.provider as MockProvider).receive(event)
    await done(bot, recordOf(f, event))
    const [record] = await backend.journal(bot.scope).read('inbox', [recordOf(f, event)])
    expect(JSON.stringify(record!.record)).not.toContain(SECRET)
    expect(record!.record.event).toMatchObject({ media: { stored: { provider: f.channel, v: 1 } } })
    await bot.durability!.replayInbound(recordOf(f, event))
    await waitFor(() => seen.length === 2)
    expectReplayDownloaded(f, seen, token)
  })

  it('a stored reference changed in the journal (with or without its check recomputed) fails at loadMediaOf with rehydrate-failed', async () => {
    const { bytes, event } = scene(f, 4)
    const backend = new MemoryDurability()
    const seen: Seen[] = []
    const bot = await bots.start(
      { provider: speak(new MockProvider({ name: f.channel }), f, bytes), durability: { ...FAST, backend } },
      recordMedia(seen),
    )
    await (bot.provider as MockProvider).receive(event)
    await done(bot, recordOf(f, event))
    const journal = backend.journal(bot.scope)
    const [original] = await journal.read('inbox', [recordOf(f, event)])
    const media = (original!.record.event as Record<string, Json>).media as Record<string, Json>
    const stored = media.stored as { provider: string; v: number; data: Record<string, Json> }
    const changes = fc
      .oneof(
        fc
          .tuple(fc.infiniteStream(fc.nat()), fc.jsonValue())
          .map(([picks, value]) => mutation(stored.data, picks, value as Json) as Record<string, Json>),
        f.hostile.map((change) => {
          const { check: _check, ...data } = stored.data
          const changed = change(data)
          return { ...changed, check: checkOf(f.channel, changed) }
        }),
      )
      .filter((data) => JSON.stringify(data) !== JSON.stringify(stored.data))
    await fc.assert(
      fc.asyncProperty(changes, async (data) => {
        const [current] = await journal.read('inbox', [recordOf(f, event)])
        const tampered = {
          ...current!.record,
          event: { ...(current!.record.event as Record<string, Json>), media: { ...media, stored: { ...stored, data } } },
        }
        await journal.write('inbox.claim', [{ kind: 'inbox', record: tampered, expectVersion: current!.version }])
        const before = seen.length
        await bot.durability!.replayInbound(recordOf(f, event))
        await waitFor(() => seen.length === before + 1)
        await done(bot, recordOf(f, event))
        const run = seen[before]!
        expect(run.media).toBeUndefined()
        expect(run.error).toBeInstanceOf(MediaUnavailableError)
        expect(run.error).toMatchObject({ reason: 'rehydrate-failed', code: 'MEDIA_UNAVAILABLE' })
        expect((run.error as MediaUnavailableError).cause).toMatchObject({ code: 'MEDIA_REF_INVALID' })
      }),
      { numRuns: 6 },
    )
  })
})
