/**
 * Crash recovery with the WhatsApp Cloud API transport: a send the platform accepted whose answer
 * never came (the request timed out, then the process died) is the ambiguous window, `unknown`
 * under 'skip' and resent once under 'resend'; and a crash after an image message was journaled
 * replays it on restart, downloading the media by the journaled id (SQLite durability).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { onEngine } from '../../test-utils/engine.js'
import { MemoryDurability } from '../../src/core/index.js'
import { SQLiteStore } from '../../src/backends/sqlite/index.js'
import type { Bot } from '../../src/core/bot/bot.js'
import type { Context } from '../../src/core/bot/context.js'
import type { DurabilityBackend } from '../../src/core/durability/journal/backend.js'
import { IMAGE } from '../../src/core/bot/matchers.js'
import { loadMediaOf } from '../../src/core/provider/media.js'
import { MemoryStore, type Store } from '../../src/core/store/store.js'
import { crashable } from '../../src/testing/crashable.js'
import { MetaCloudProvider, type MetaCloudProviderOptions } from '../../src/providers/meta/index.js'
import { waitFor } from '../../test-utils/wait.js'
import { FakeGraph } from './fixtures/fake-graph.js'
import { PHONE_NUMBER_ID, imageMessage, payloadOf, postWebhook } from './fixtures/meta-webhooks.js'
import { FAST, useBots } from './harness.js'
import { inboxRecordId } from '../../src/core/durability/outbox/keys.js'

// These tests arm the message engine's writes, which the steps engine never makes: they run on the
// message engine whatever BOTMESH_ENGINE says (a wrapped backend now runs the engine it would run unwrapped).
onEngine('message')

const ACCESS_TOKEN = 'EAAG-recovery-token-000'
const APP_SECRET = 'app-secret-recovery'
const bots = useBots()
const dir = mkdtempSync(join(tmpdir(), 'botmesh-meta-'))
const providers: MetaCloudProvider[] = []
let graph: FakeGraph
afterEach(async () => {
  // A crashed bot is never stopped; its webhook server is closed here.
  await Promise.all(providers.splice(0).map((p) => p.stop()))
  await graph?.stop()
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function meta(options: Partial<MetaCloudProviderOptions> = {}): MetaCloudProvider {
  const p = new MetaCloudProvider({
    accessToken: ACCESS_TOKEN,
    phoneNumberId: PHONE_NUMBER_ID,
    appSecret: APP_SECRET,
    verifyToken: 'v',
    webhook: { port: 0, host: '127.0.0.1' },
    graphApiRoot: graph.origin,
    onError: () => undefined,
    ...options,
  })
  providers.push(p)
  return p
}

describe('the ambiguous window: the platform accepted a send whose answer never came', () => {
  async function acceptedThenCrashed(onAmbiguous: 'skip' | 'resend'): Promise<{ second: Bot; ambiguous: unknown[] }> {
    graph = await new FakeGraph(ACCESS_TOKEN, PHONE_NUMBER_ID).start()
    const shared = new MemoryDurability()
    const store = new MemoryStore()
    // No status webhook comes here, and reconcileMs 0 decides at once: the contract's own behaviour.
    const durability = { ...FAST, outbox: { ...FAST.outbox, onAmbiguous, reconcileMs: 0 } }
    // The request times out; the process dies before the outbox records the failure.
    const a = crashable(shared).crashBefore('outbox.markFailed')
    graph.acceptWithoutAnswer(1)
    const first = await bots.start({
      // Long enough for the request to reach the fake on a loaded machine before it times out.
      provider: meta({ requestTimeoutMs: 1000 }),
      store,
      durability: { ...durability, backend: a, instanceId: 'i1' },
    })
    await first.enqueue('5511999999999', 'your code is 1234', { idempotencyKey: 'otp:1' })
    await a.whenCrashed()
    bots.abandon(first)
    expect(graph.texts()).toEqual(['your code is 1234'])
    const ambiguous: unknown[] = []
    const second = await bots.start({ provider: meta(), store, durability: { ...durability, backend: shared, instanceId: 'i1' } }, (b) =>
      b.on('durability:ambiguous', (info) => ambiguous.push(info)),
    )
    return { second, ambiguous }
  }

  it("'skip': the send is marked unknown and never sent again", async () => {
    const { second, ambiguous } = await acceptedThenCrashed('skip')
    await waitFor(async () => (await second.durability!.outbox.get('otp:1'))?.state === 'unknown')
    await second.idle()
    expect(graph.texts()).toEqual(['your code is 1234'])
    expect(ambiguous).toEqual([{ key: 'otp:1', chatId: '5511999999999' }])
    expect(second.durability!.metrics().outboxAmbiguous).toBe(1)
  })

  it("'resend': the send goes out once more, and only once", async () => {
    const { second, ambiguous } = await acceptedThenCrashed('resend')
    await waitFor(async () => (await second.durability!.outbox.get('otp:1'))?.state === 'sent')
    await second.idle()
    expect(graph.texts()).toEqual(['your code is 1234', 'your code is 1234'])
    expect(ambiguous).toHaveLength(1)
    const record = await second.durability!.outbox.get('otp:1')
    expect(record!.providerMessageId).toBe(graph.sent[1]!.id)
  })
})

describe('a send that times out in a live process', () => {
  it("sendTimeouts 'final': dead-lettered as META_SEND_AMBIGUOUS, never sent twice; 'retry' (default): sent again", async () => {
    graph = await new FakeGraph(ACCESS_TOKEN, PHONE_NUMBER_ID).start()
    const dead: { error: { code?: string } | null }[] = []
    const final = await bots.start(
      { provider: meta({ requestTimeoutMs: 200, sendTimeouts: 'final' }), durability: { ...FAST, backend: new MemoryDurability() } },
      (b) => b.on('durability:dead', (info) => dead.push(info)),
    )
    graph.acceptWithoutAnswer(1)
    await expect(final.send('5511999999999', 'once only')).rejects.toThrow()
    await waitFor(() => dead.length === 1)
    await final.idle()
    expect(dead[0]!.error).toMatchObject({ code: 'META_SEND_AMBIGUOUS' })
    expect(graph.texts()).toEqual(['once only'])
    // A generous inline window: the retry must not be deferred on a loaded machine. And a timeout
    // the answered retry meets at load 10: only the unanswered request may time out.
    const retry = await bots.start({
      provider: meta({ requestTimeoutMs: 3_000 }),
      durability: { ...FAST, outbox: { ...FAST.outbox, inlineMaxMs: 30_000 }, backend: new MemoryDurability() },
    })
    graph.acceptWithoutAnswer(1)
    await retry.send('5511999999999', 'at least once')
    expect(graph.texts()).toEqual(['once only', 'at least once', 'at least once'])
  })
})

describe('a crash after an image message was journaled', () => {
  async function crashThenReplay(backend: DurabilityBackend, store: Store): Promise<void> {
    graph = await new FakeGraph(ACCESS_TOKEN, PHONE_NUMBER_ID).start()
    graph.media.set('1037543291543636', { bytes: Buffer.from('the photo'), mime: 'image/jpeg' })
    const seen: (Buffer | undefined)[] = []
    const setup = (b: Bot) =>
      b.when(IMAGE, async (ctx: Context) => {
        seen.push(await loadMediaOf(ctx, { throwOnError: true }))
        await ctx.reply('thanks for the photo')
      })
    const a = crashable(backend).crashBefore('outbox.journal')
    const firstProvider = meta()
    const first = await bots.start({ provider: firstProvider, store, durability: { ...FAST, backend: a, instanceId: 'i1' } }, setup)
    expect(
      (
        await postWebhook(
          firstProvider.webhookOrigin!,
          payloadOf([imageMessage('wamid.IMG1', '1037543291543636', 'my receipt')]),
          APP_SECRET,
        )
      ).status,
    ).toBe(200)
    await a.whenCrashed()
    bots.abandon(first)
    expect(graph.sent).toEqual([])
    const second = await bots.start({ provider: meta(), store, durability: { ...FAST, backend, instanceId: 'i1' } }, setup)
    await waitFor(async () => (await second.durability!.inbox.get(inboxRecordId('meta', '5511999999999', 'wamid.IMG1')))?.state === 'done')
    expect(seen).toEqual([Buffer.from('the photo'), Buffer.from('the photo')])
    // The reply went out once, from the replay.
    expect(graph.texts()).toEqual(['thanks for the photo'])
    const record = await second.durability!.inbox.get(inboxRecordId('meta', '5511999999999', 'wamid.IMG1'))
    expect(record!.event).toMatchObject({
      text: 'my receipt',
      media: { type: 'image', stored: { provider: 'meta', v: 1, data: { id: '1037543291543636' } } },
    })
    expect(JSON.stringify(record)).not.toContain(ACCESS_TOKEN)
  }

  it('the restart replays it and downloads the media by its id (SQLite)', async () => {
    const store = new SQLiteStore({ file: join(dir, 'meta.db') })
    await crashThenReplay(store.durability(), store)
  })

  it('the same with MemoryDurability', async () => {
    await crashThenReplay(new MemoryDurability(), new MemoryStore())
  })
})
