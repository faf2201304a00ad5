/**
 * The seed's "Operating it": bot.durability (scope, inbox.list, outbox.list, replayInbound,
 * retrySend, outbox.discard, metrics), the events, retention, namespaced scopes on one backend, and
 * the instance heartbeat tools outside the process read (docs/operating.md).
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { MemoryDurability } from '../../src/core/index.js'
import type { Bot } from '../../src/core/bot/bot.js'
import { METRIC_NAMES, type MetricName } from '../../src/core/durability/metrics.js'
import type { InstanceRecord } from '../../src/core/durability/journal/records.js'
import { InvalidStateError, RecordNotFoundError } from '../../src/core/errors/errors.js'
import { TEXT } from '../../src/core/bot/matchers.js'
import { UnsupportedContentError } from '../../src/core/provider/provider-errors.js'
import type { InboundSink } from '../../src/core/provider/provider.js'
import { MemoryStore } from '../../src/core/store/store.js'
import { crashable } from '../../src/testing/crashable.js'
import { CrashableProvider } from '../../src/testing/crashable-provider.js'
import { MockProvider } from '../../src/testing/mock-provider.js'
import { deferred, waitFor } from '../../test-utils/wait.js'
import { fast, holdSends, recordId, sweeps, useBots, type TestBot } from './helpers.js'

const bots = useBots()
afterEach(() => {
  vi.restoreAllMocks()
})

const echo = (bot: Bot) => bot.when(TEXT, (ctx) => ctx.reply(`echo ${ctx.message.text}`))

async function stateOf(t: TestBot, kind: 'inbox' | 'outbox', id: string): Promise<string | undefined> {
  return kind === 'inbox' ? (await t.bot.durability!.inbox.get(id))?.state : (await t.bot.durability!.outbox.get(id))?.state
}

describe('bot.durability', () => {
  it('`scope` is the namespace’s derived id (tenantId/environmentId/botId/connectionId)', () => {
    const t = bots.create({ tenantId: 'acme', environmentId: 'prod', botId: 'support', connectionId: 'wa1', durability: {} })
    expect(t.bot.durability!.scope).toBe('acme/prod/support/wa1')
    expect(t.bot.scope).toBe('acme/prod/support/wa1')
    expect(bots.create({ durability: {} }).bot.durability!.scope).toBe('default/default/bot/default')
    expect(bots.create({}).bot.durability).toBeUndefined()
  })

  it("`inbox.list({ state: 'dead' })` is the inbound DLQ and `outbox.list({ state: 'dead' })` the outbound DLQ", async () => {
    const store = new MemoryStore()
    vi.spyOn(store, 'getCheckpoint').mockImplementation(async (_scope, chatId) => {
      if (chatId === 'broken') throw new Error('store down')
      return undefined
    })
    const t = await bots.start({ store, durability: fast({ inbox: { maxAttempts: 1 } }), setup: echo })
    t.provider.failNext(1, new UnsupportedContentError(), (_chat, content) => content === 'sticker?')
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await t.provider.receive({ id: 'm2', chatId: 'broken', text: 'hi' })
    await t.bot.send('c1', 'sticker?', { idempotencyKey: 'k-dead' }).catch(() => undefined)
    await waitFor(() => t.dead.length === 2)
    await t.bot.idle()
    const d = t.bot.durability!
    expect((await d.inbox.list({ state: 'dead' })).map((r) => [r.id, r.lastError?.message])).toEqual([
      [recordId('m2', 'broken'), 'store down'],
    ])
    expect((await d.outbox.list({ state: 'dead' })).map((r) => [r.key, r.lastError?.code])).toEqual([['k-dead', 'UNSUPPORTED_CONTENT']])
    expect((await d.inbox.list({ state: 'done' })).map((r) => r.id)).toEqual([recordId('m1')])
    expect((await d.inbox.list()).map((r) => r.id).sort()).toEqual([recordId('m1'), recordId('m2', 'broken')].sort())
    expect((await d.outbox.list()).map((r) => r.key).sort()).toEqual(['k-dead', `${recordId('m1')}:1`])
    expect(await d.outbox.list({ limit: 1 })).toHaveLength(1)
  })

  it('`replayInbound(id)` processes it again (dead, failed or done)', async () => {
    const store = new MemoryStore()
    const getCheckpoint = vi.spyOn(store, 'getCheckpoint').mockRejectedValue(new Error('store down'))
    const t = await bots.start({ store, durability: fast({ inbox: { maxAttempts: 2 } }), setup: echo })
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await waitFor(() => t.dead.length === 1)
    getCheckpoint.mockRestore()
    await t.bot.durability!.replayInbound(recordId('m1'), { by: 'ops@example', reason: 'store is back' })
    await waitFor(async () => (await stateOf(t, 'inbox', recordId('m1'))) === 'done')
    expect(t.provider.texts()).toEqual(['echo hi'])
    const record = (await t.bot.durability!.inbox.get(recordId('m1')))!
    expect(record.attempts).toBe(1)
    expect(record.audit).toEqual([expect.objectContaining({ action: 'replay', by: 'ops@example', reason: 'store is back' })])

    // A done record replays too; its replies are answered from the outbox.
    await t.bot.durability!.replayInbound(recordId('m1'))
    await waitFor(() => t.bot.durability!.metrics().inboundReplayed === 3)
    await waitFor(async () => (await stateOf(t, 'inbox', recordId('m1'))) === 'done')
    await t.bot.idle()
    expect(t.provider.texts()).toEqual(['echo hi'])
  })

  it('`replayInbound` refuses a record in flight or one that does not exist', async () => {
    const release = deferred()
    const t = await bots.start({ durability: fast(), setup: (bot) => bot.when(TEXT, () => release.promise) })
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await expect(t.bot.durability!.replayInbound(recordId('m1'))).rejects.toBeInstanceOf(InvalidStateError)
    await expect(t.bot.durability!.replayInbound(recordId('m1'))).rejects.toMatchObject({ code: 'INVALID_STATE' })
    await expect(t.bot.durability!.replayInbound('nope')).rejects.toBeInstanceOf(RecordNotFoundError)
    await expect(t.bot.durability!.replayInbound('nope')).rejects.toMatchObject({ code: 'RECORD_NOT_FOUND' })
    release.resolve()
    await t.bot.idle()
  })

  it('`retrySend(key)` sends it again: a dead send', async () => {
    const t = await bots.start({ durability: fast() })
    t.provider.failNext(1, new UnsupportedContentError())
    await t.bot.send('c1', 'hello', { idempotencyKey: 'k' }).catch(() => undefined)
    expect(await stateOf(t, 'outbox', 'k')).toBe('dead')
    await t.bot.durability!.retrySend('k', { reason: 'template approved' })
    await waitFor(async () => (await stateOf(t, 'outbox', 'k')) === 'sent')
    expect(t.provider.texts()).toEqual(['hello'])
    expect((await t.bot.durability!.outbox.get('k'))!.audit).toEqual([
      expect.objectContaining({ action: 'retry', reason: 'template approved' }),
    ])
  })

  it('`retrySend(key)` sends it again: a failed send waiting for its next attempt', async () => {
    const t = await bots.start({ durability: fast({ outbox: { backoff: { baseMs: 60_000, capMs: 60_000, jitter: 0 } } }) })
    t.provider.failNext(1)
    await t.bot.enqueue('c1', 'hello', { idempotencyKey: 'k' })
    await waitFor(async () => (await stateOf(t, 'outbox', 'k')) === 'failed')
    await t.bot.durability!.retrySend('k')
    await waitFor(async () => (await stateOf(t, 'outbox', 'k')) === 'sent')
    expect(t.provider.texts()).toEqual(['hello'])
  })

  it("`retrySend(key)` sends it again: an unknown send (after `onAmbiguous: 'skip'`)", async () => {
    const shared = new MemoryDurability()
    const a = crashable(shared).crashBefore('outbox.markSent')
    const first = await bots.start({ provider: new CrashableProvider(a), durability: fast({ backend: a, instanceId: 'i1' }) })
    void first.bot.send('c1', 'hello', { idempotencyKey: 'k' })
    await a.whenCrashed()
    bots.abandon(first)
    const second = await bots.start({ durability: fast({ backend: shared, instanceId: 'i1' }) })
    await waitFor(async () => (await stateOf(second, 'outbox', 'k')) === 'unknown')
    await second.bot.durability!.retrySend('k')
    await waitFor(async () => (await stateOf(second, 'outbox', 'k')) === 'sent')
    expect(second.provider.texts()).toEqual(['hello'])
  })

  it('`retrySend` re-queues the later parts that died with a split send, so the whole text goes out in order', async () => {
    const provider = new MockProvider({ textLimit: 5 })
    provider.failNext(1, new UnsupportedContentError(), (_chat, content) => content === 'aaaa ')
    const t = await bots.start({ provider, durability: fast() })
    await t.bot.send('c1', 'aaaa bbbb cccc', { idempotencyKey: 'k' }).catch(() => undefined)
    await waitFor(() => t.dead.length === 3)
    await t.bot.durability!.retrySend('k')
    await waitFor(() => provider.sent.length === 3)
    expect(provider.texts()).toEqual(['aaaa ', 'bbbb ', 'cccc'])
  })

  it('`retrySend` refuses a send that is not dead, failed or unknown, or that does not exist', async () => {
    const t = await bots.start({ durability: fast() })
    await t.bot.send('c1', 'hello', { idempotencyKey: 'k' })
    await expect(t.bot.durability!.retrySend('k')).rejects.toMatchObject({ code: 'INVALID_STATE' })
    await expect(t.bot.durability!.retrySend('nope')).rejects.toMatchObject({ code: 'RECORD_NOT_FOUND' })
  })

  it('`outbox.discard(key)` forgets it (a later send under the key goes out again); a send in flight is refused', async () => {
    const t = await bots.start({ durability: fast() })
    t.provider.failNext(1, new UnsupportedContentError())
    await t.bot.send('c1', 'hello', { idempotencyKey: 'k' }).catch(() => undefined)
    await t.bot.durability!.outbox.discard('k')
    expect(await t.bot.durability!.outbox.get('k')).toBeUndefined()
    expect(await t.bot.durability!.outbox.list({ state: 'dead' })).toEqual([])
    await t.bot.send('c1', 'hello', { idempotencyKey: 'k' })
    expect(t.provider.texts()).toEqual(['hello'])

    const gate = holdSends(t.provider)
    const inFlight = t.bot.send('c1', 'slow', { idempotencyKey: 'k2' })
    await gate.reached()
    await expect(t.bot.durability!.outbox.discard('k2')).rejects.toBeInstanceOf(InvalidStateError)
    gate.release()
    await inFlight
    await expect(t.bot.durability!.outbox.discard('nope')).rejects.toBeInstanceOf(RecordNotFoundError)
  })
})

describe('metrics(): all 13 counters', () => {
  it('has exactly the seed’s 13 counters, all zero at the start', () => {
    const metrics = bots.create({ durability: {} }).bot.durability!.metrics()
    expect(Object.keys(metrics).sort()).toEqual(
      [
        'inboundJournaled',
        'inboundDuplicates',
        'inboundReplayed',
        'inboundDead',
        'outboxJournaled',
        'outboxDeduped',
        'outboxRetried',
        'outboxDeferred',
        'outboxDead',
        'outboxAmbiguous',
        'outboxBypassed',
        'staleLeases',
        'outboxDiverged',
        'outboxReconciled',
      ].sort(),
    )
    expect(Object.values(metrics).every((n) => n === 0)).toBe(true)
    expect([...METRIC_NAMES].sort()).toEqual(Object.keys(metrics).sort())
  })

  const scenarios: Record<MetricName, () => Promise<TestBot>> = {
    async inboundJournaled() {
      const t = await bots.start({ durability: fast(), setup: echo })
      await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
      await t.bot.idle()
      return t
    },
    async inboundDuplicates() {
      const t = await bots.start({ durability: fast(), setup: echo })
      await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
      await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
      await t.bot.idle()
      return t
    },
    async inboundReplayed() {
      const t = await bots.start({ durability: fast(), setup: echo })
      await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
      await t.bot.idle()
      await t.bot.durability!.replayInbound(recordId('m1'))
      await waitFor(async () => t.bot.durability!.metrics().inboundReplayed === 1 && (await stateOf(t, 'inbox', recordId('m1'))) === 'done')
      return t
    },
    async inboundDead() {
      const store = new MemoryStore()
      vi.spyOn(store, 'getCheckpoint').mockRejectedValue(new Error('store down'))
      const t = await bots.start({ store, durability: fast({ inbox: { maxAttempts: 1 } }), setup: echo })
      await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
      await waitFor(() => t.dead.length === 1)
      return t
    },
    async outboxJournaled() {
      const t = await bots.start({ durability: fast() })
      await t.bot.send('c1', 'hi')
      return t
    },
    async outboxDeduped() {
      const t = await bots.start({ durability: fast() })
      await t.bot.send('c1', 'hi', { idempotencyKey: 'k' })
      await t.bot.send('c1', 'hi', { idempotencyKey: 'k' })
      return t
    },
    async outboxRetried() {
      const t = await bots.start({ durability: fast() })
      t.provider.failNext(1)
      await t.bot.send('c1', 'hi')
      return t
    },
    async outboxDeferred() {
      const t = await bots.start({ durability: fast({ outbox: { inlineMaxMs: 5, backoff: { baseMs: 30, capMs: 30, jitter: 0 } } }) })
      t.provider.failNext(1)
      await t.bot.send('c1', 'hi', { idempotencyKey: 'k' }).catch(() => undefined)
      await waitFor(async () => (await stateOf(t, 'outbox', 'k')) === 'sent')
      return t
    },
    async outboxDead() {
      const t = await bots.start({ durability: fast() })
      t.provider.failNext(1, new UnsupportedContentError())
      await t.bot.send('c1', 'hi').catch(() => undefined)
      return t
    },
    async outboxAmbiguous() {
      const shared = new MemoryDurability()
      const a = crashable(shared).crashBefore('outbox.markSent')
      const first = await bots.start({ provider: new CrashableProvider(a), durability: fast({ backend: a, instanceId: 'i1' }) })
      void first.bot.send('c1', 'hi', { idempotencyKey: 'k' })
      await a.whenCrashed()
      bots.abandon(first)
      const second = await bots.start({ durability: fast({ backend: shared, instanceId: 'i1' }) })
      await waitFor(() => second.ambiguous.length === 1)
      return second
    },
    async outboxReconciled() {
      // A provider that echoes the outbox key reports the crashed send's status after the restart.
      class Echoing extends MockProvider {
        readonly echoesOutboxKey = true
        sink: InboundSink | undefined
        override async start(sink: InboundSink): Promise<void> {
          this.sink = sink
          await super.start(sink)
        }
      }
      const shared = new MemoryDurability()
      const a = crashable(shared).crashBefore('outbox.markSent')
      const first = await bots.start({ provider: new CrashableProvider(a), durability: fast({ backend: a, instanceId: 'i1' }) })
      void first.bot.send('c1', 'hi', { idempotencyKey: 'k' })
      await a.whenCrashed()
      bots.abandon(first)
      const provider = new Echoing()
      const second = await bots.start({ provider, durability: fast({ backend: shared, instanceId: 'i1' }) })
      await provider.sink!.delivered!({ outboxKey: 'k', messageId: 'channel-1', status: 'sent' })
      expect(await second.bot.durability!.outbox.get('k')).toMatchObject({ state: 'sent', providerMessageId: 'channel-1' })
      return second
    },
    async outboxBypassed() {
      const t = await bots.start({ durability: fast({ outbox: { maxPayloadBytes: 10 } }) })
      await t.bot.send('c1', 'a text longer than ten bytes')
      return t
    },
    async staleLeases() {
      const backend = new MemoryDurability()
      const release = deferred()
      const t = await bots.start({ durability: fast({ backend }), setup: (bot) => bot.when(TEXT, () => release.promise) })
      await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
      // Another holder takes the record over while the handler runs (as a replica would after an expiry).
      const journal = backend.journal(t.bot.scope)
      const [found] = await journal.read('inbox', [recordId('m1')])
      const takeover = { ...found!.record, lease: { ...found!.record.lease!, owner: 'other', token: 2 }, fencingToken: 2 }
      expect((await journal.write('inbox.claim', [{ kind: 'inbox', record: takeover, expectVersion: found!.version }]))[0]!.ok).toBe(true)
      release.resolve()
      await waitFor(() => t.bot.durability!.metrics().staleLeases === 1)
      expect((await journal.read('inbox', [recordId('m1')]))[0]!.record).toMatchObject({ state: 'processing', fencingToken: 2 })
      return t
    },
    async outboxDiverged() {
      let answer = 'one'
      const t = await bots.start({ durability: fast(), setup: (bot) => bot.when(TEXT, (ctx) => ctx.reply(answer)) })
      await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
      await t.bot.idle()
      answer = 'two'
      await t.bot.durability!.replayInbound(recordId('m1'))
      await waitFor(() => t.bot.durability!.metrics().outboxDiverged === 1)
      return t
    },
  }

  it.each(METRIC_NAMES.map((name) => [name]))('%s counts', async (name) => {
    const t = await scenarios[name]()
    expect(t.bot.durability!.metrics()[name]).toBe(1)
  })

  it('the instance heartbeat carries the metrics, so tools outside the process see live replicas; it is removed on a graceful stop', async () => {
    const backend = new MemoryDurability()
    const t = await bots.start({
      durability: fast({ backend, instanceId: 'pod-0', inbox: { maxAttempts: 3 }, outbox: { retries: 1 } }),
      setup: echo,
    })
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await t.bot.idle()
    const journal = backend.journal(t.bot.scope)
    const instance = await waitFor(async () => (await journal.read('instances', ['pod-0']))[0]?.record as InstanceRecord | undefined)
    // Its attempt limits too: `botmesh show` counts "attempt n of m" against them, not the defaults.
    expect(instance).toMatchObject({
      instanceId: 'pod-0',
      botId: 'bot',
      pid: process.pid,
      limits: { inboxMaxAttempts: 3, outboxRetries: 1 },
    })
    expect(instance.expiresAt).toBeGreaterThan(instance.lastBeatAt)
    expect(Object.keys(instance.metrics).sort()).toEqual([...METRIC_NAMES].sort())
    await t.bot.stop()
    expect((await journal.read('instances', ['pod-0']))[0]).toBeUndefined()
  })
})

describe('Events', () => {
  it("`'durability:dead'` fires with `{ kind, id, error }` for the inbox and the outbox", async () => {
    const store = new MemoryStore()
    vi.spyOn(store, 'getCheckpoint').mockRejectedValue(new Error('store down'))
    const t = await bots.start({ store, durability: fast({ inbox: { maxAttempts: 1 } }), setup: echo })
    t.provider.failNext(1, new UnsupportedContentError('no stickers'))
    await t.bot.send('c1', 'sticker', { idempotencyKey: 'k' }).catch(() => undefined)
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await waitFor(() => t.dead.length === 2)
    expect(t.dead).toEqual([
      { kind: 'outbox', id: 'k', error: expect.objectContaining({ message: 'no stickers', code: 'UNSUPPORTED_CONTENT' }) },
      { kind: 'inbox', id: recordId('m1'), error: expect.objectContaining({ message: 'store down' }) },
    ])
  })

  it("`'durability:ambiguous'` fires with `{ key, chatId }`", async () => {
    const shared = new MemoryDurability()
    const a = crashable(shared).crashBefore('outbox.markSent')
    const first = await bots.start({ provider: new CrashableProvider(a), durability: fast({ backend: a, instanceId: 'i1' }) })
    void first.bot.enqueue('chat-9', 'hi', { idempotencyKey: 'audit-me' })
    await a.whenCrashed()
    bots.abandon(first)
    const second = await bots.start({ durability: fast({ backend: shared, instanceId: 'i1' }) })
    await waitFor(() => second.ambiguous.length === 1)
    expect(second.ambiguous).toEqual([{ key: 'audit-me', chatId: 'chat-9' }])
  })
})

describe('Retention', () => {
  it('done and sent records are purged after `retention`; dead, failed and unknown ones are kept', async () => {
    const t = await bots.start({ durability: fast({ retention: 50 }), setup: echo })
    t.provider.failNext(1, new UnsupportedContentError())
    await t.bot.send('c1', 'dead', { idempotencyKey: 'dead' }).catch(() => undefined)
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await t.bot.idle()
    expect(await t.bot.durability!.outbox.get(`${recordId('m1')}:1`)).toBeDefined()
    await waitFor(
      async () =>
        (await t.bot.durability!.inbox.list()).length === 0 && (await t.bot.durability!.outbox.list({ state: 'sent' })).length === 0,
    )
    expect((await t.bot.durability!.outbox.list()).map((r) => r.key)).toEqual(['dead'])
  })

  it('a redelivery is only recognised while its record still exists', async () => {
    const backend = new MemoryDurability()
    const first = await bots.start({ durability: fast({ backend, instanceId: 'i1', retention: 30 }), setup: echo })
    await first.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await waitFor(async () => (await first.bot.durability!.inbox.list()).length === 0)
    await first.bot.stop()
    const second = await bots.start({ durability: fast({ backend, instanceId: 'i1', retention: 30 }), setup: echo })
    await second.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await second.bot.idle()
    expect(second.provider.texts()).toEqual(['echo hi'])
  })

  it('`0` keeps them', async () => {
    const t = await bots.start({ durability: fast({ retention: 0 }), setup: echo })
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await t.bot.idle()
    const done = (await t.bot.durability!.inbox.get(recordId('m1')))!
    await waitFor(() => Date.now() > done.updatedAt + 50)
    await sweeps(t, 3)
    expect(await t.bot.durability!.inbox.get(recordId('m1'))).toMatchObject({ state: 'done' })
    expect(await t.bot.durability!.outbox.get(`${recordId('m1')}:1`)).toMatchObject({ state: 'sent' })
    expect(t.tap!.count('purge')).toBe(0)
  })
})

describe('Namespaced scopes', () => {
  it('two bots on one backend never touch each other’s records', async () => {
    const shared = new MemoryDurability()
    const store = new MemoryStore()
    const a = crashable(shared).crashBefore('inbox.complete')
    const clinicA = await bots.start({
      botId: 'clinic',
      store,
      provider: new CrashableProvider(a),
      durability: fast({ backend: a, instanceId: 'i1', inbox: { leaseMs: 100 } }),
      setup: echo,
    })
    await clinicA.provider.receive({ id: 'm1', chatId: 'c1', text: 'clinic' })
    await a.whenCrashed()
    bots.abandon(clinicA)

    // The same instanceId, the same event id, another bot: its own records only.
    const salon = await bots.start({
      botId: 'salon',
      store,
      durability: fast({ backend: shared, instanceId: 'i1', inbox: { leaseMs: 100 } }),
      setup: echo,
    })
    await salon.provider.receive({ id: 'm1', chatId: 'c1', text: 'salon' })
    await salon.bot.idle()
    const clinicRecord = (await shared.journal(clinicA.bot.scope).read('inbox', [recordId('m1')]))[0]!.record
    await waitFor(() => Date.now() > clinicRecord.lease!.expiresAt + 20)
    await sweeps(salon, 3)
    expect(salon.provider.texts()).toEqual(['echo salon'])
    expect(salon.bot.durability!.metrics()).toMatchObject({
      inboundReplayed: 0,
      inboundDuplicates: 0,
      outboxDeduped: 0,
      outboxAmbiguous: 0,
    })
    expect((await salon.bot.durability!.inbox.list()).map((r) => [r.id, r.state, (r.event as { text: string }).text])).toEqual([
      [recordId('m1'), 'done', 'salon'],
    ])
    expect((await shared.journal(clinicA.bot.scope).read('inbox', [recordId('m1')]))[0]!.record).toMatchObject({
      state: 'processing',
      fencingToken: 1,
    })
    expect(await shared.scopes()).toEqual(expect.arrayContaining([clinicA.bot.scope, salon.bot.scope]))

    // The clinic bot's own restart replays its record; the salon's is untouched.
    const clinicB = await bots.start({
      botId: 'clinic',
      store,
      durability: fast({ backend: shared, instanceId: 'i1', inbox: { leaseMs: 100 } }),
      setup: echo,
    })
    await waitFor(async () => (await stateOf(clinicB, 'inbox', recordId('m1'))) === 'done')
    await clinicB.bot.idle()
    expect(clinicB.provider.sent).toEqual([])
    expect([...clinicA.provider.texts(), ...clinicB.provider.texts()]).toEqual(['echo clinic'])
    expect(await salon.bot.durability!.inbox.get(recordId('m1'))).toMatchObject({ state: 'done', fencingToken: 1 })
  })

  it('an operator’s replay, retry and discard only see the bot’s own scope; explicit keys are per bot', async () => {
    const backend = new MemoryDurability()
    const clinic = await bots.start({ botId: 'clinic', durability: fast({ backend }) })
    const salon = await bots.start({ botId: 'salon', durability: fast({ backend }) })
    await clinic.bot.enqueue('c1', 'clinic reminder', { idempotencyKey: 'reminder:1' })
    await salon.bot.enqueue('c1', 'salon reminder', { idempotencyKey: 'reminder:1' })
    await waitFor(() => clinic.provider.sent.length === 1 && salon.provider.sent.length === 1)
    await salon.bot.durability!.outbox.discard('reminder:1')
    expect(await salon.bot.durability!.outbox.get('reminder:1')).toBeUndefined()
    expect(await clinic.bot.durability!.outbox.get('reminder:1')).toMatchObject({ state: 'sent', payload: 'clinic reminder' })
    await expect(salon.bot.durability!.retrySend('reminder:1')).rejects.toBeInstanceOf(RecordNotFoundError)
    await expect(salon.bot.durability!.replayInbound('anything')).rejects.toBeInstanceOf(RecordNotFoundError)
  })
})
