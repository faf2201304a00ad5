/**
 * The seed's "Leases and fencing" and "instanceId": heartbeats keep a slow handler's and a slow
 * send's lease, every claim takes a new token, a stale completion is rejected and counted in
 * staleLeases, the instanceId defaults, and a restarted instance reclaiming its own earlier leases
 * at its first sweep (never a send it is making itself).
 */
import { execFile } from 'node:child_process'
import { hostname } from 'node:os'
import { promisify } from 'node:util'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { MemoryDurability } from '../../src/core/index.js'
import { MemoryKv } from '../../src/core/backend-internals.js'
import { KvDurability } from '../../src/core/durability/journal/kv-durability.js'
import type { InboxRecord, OutboxRecord } from '../../src/core/durability/journal/records.js'
import { TEXT } from '../../src/core/bot/matchers.js'
import { MemoryStore } from '../../src/core/store/store.js'
import { crashable } from '../../src/testing/crashable.js'
import { CrashableProvider } from '../../src/testing/crashable-provider.js'
import { ManualClock } from '../../src/testing/manual-clock.js'
import { MockProvider } from '../../src/testing/mock-provider.js'
import { JournalUnavailableError } from '../../src/core/errors/errors.js'
import { deferred, waitFor } from '../../test-utils/wait.js'
import { fast, holdSends, recordId, sweeps, TapBackend, useBots } from './helpers.js'

const bots = useBots()
/** The lease of the heartbeat tests: it also sets the lease keeper's real period (a third of it). */
const LEASE_MS = 300
afterEach(() => {
  vi.restoreAllMocks()
})

describe('Leases with heartbeat', () => {
  // Lease expiry is judged on a ManualClock (the backend's and both replicas'): the clock moves half a
  // lease at a time, and only after a's heartbeat for the time before landed, so a busy host that
  // runs the keeper's timer late cannot let the lease run out; a keeper that does not renew can.
  it('a heartbeat extends the inbox lease while the handler runs; another replica never takes it', async () => {
    const clock = new ManualClock()
    const backend = new MemoryDurability({ now: clock.now })
    const release = deferred()
    let runs = 0
    const setup = (bot: import('../../src/core/bot/bot.js').Bot) =>
      bot.when(TEXT, async (ctx) => {
        runs++
        await release.promise
        await ctx.reply('done at last')
      })
    const a = await bots.start({
      durability: fast({ backend, clock: clock.now, instanceId: 'a', inbox: { leaseMs: LEASE_MS }, outbox: { leaseMs: LEASE_MS } }),
      setup,
    })
    const b = await bots.start({
      durability: fast({ backend, clock: clock.now, instanceId: 'b', inbox: { leaseMs: LEASE_MS }, outbox: { leaseMs: LEASE_MS } }),
      setup,
    })
    await a.provider.receive({ id: 'm1', chatId: 'c1', text: 'slow' })
    const first = (await a.bot.durability!.inbox.get(recordId('m1')))!.lease!
    for (let step = 1; step <= 4; step++) {
      clock.advance(LEASE_MS / 2)
      await waitFor(async () => (await a.bot.durability!.inbox.get(recordId('m1')))!.lease!.expiresAt === clock.now() + LEASE_MS, {
        message: `a heartbeat at step ${step}`,
      })
      await sweeps(b, 1)
    }
    expect((await a.bot.durability!.inbox.get(recordId('m1')))!.lease!.expiresAt).toBeGreaterThanOrEqual(first.expiresAt + 2 * LEASE_MS)
    release.resolve()
    await waitFor(async () => (await a.bot.durability!.inbox.get(recordId('m1')))!.state === 'done')
    expect(runs).toBe(1)
    expect(a.tap!.written<InboxRecord>('inbox.heartbeat').length).toBeGreaterThanOrEqual(2)
    expect(b.bot.durability!.metrics().inboundReplayed).toBe(0)
    expect(a.bot.durability!.metrics().staleLeases + b.bot.durability!.metrics().staleLeases).toBe(0)
    expect(a.provider.texts()).toEqual(['done at last'])
  })

  it('a heartbeat extends the outbox lease while the provider call runs: a slow upload is never taken for an abandoned send', async () => {
    const clock = new ManualClock()
    const backend = new MemoryDurability({ now: clock.now })
    const a = await bots.start({
      durability: fast({ backend, clock: clock.now, instanceId: 'a', inbox: { leaseMs: LEASE_MS }, outbox: { leaseMs: LEASE_MS } }),
    })
    const b = await bots.start({
      durability: fast({ backend, clock: clock.now, instanceId: 'b', inbox: { leaseMs: LEASE_MS }, outbox: { leaseMs: LEASE_MS } }),
    })
    const gate = holdSends(a.provider)
    const sending = a.bot.send('c1', { media: { type: 'video', url: 'https://example.com/big.mp4' } }, { idempotencyKey: 'upload' })
    await gate.reached()
    const first = (await a.bot.durability!.outbox.get('upload'))!.lease!
    for (let step = 1; step <= 4; step++) {
      clock.advance(LEASE_MS / 2)
      await waitFor(async () => (await a.bot.durability!.outbox.get('upload'))!.lease!.expiresAt === clock.now() + LEASE_MS, {
        message: `a heartbeat at step ${step}`,
      })
      await sweeps(b, 1)
    }
    expect((await a.bot.durability!.outbox.get('upload'))!.lease!.expiresAt).toBeGreaterThanOrEqual(first.expiresAt + 2 * LEASE_MS)
    gate.release()
    await sending
    expect(await a.bot.durability!.outbox.get('upload')).toMatchObject({ state: 'sent', fencingToken: 1 })
    expect(a.provider.sent).toHaveLength(1)
    expect(b.provider.sent).toHaveLength(0)
    expect(b.ambiguous).toEqual([])
    expect(a.bot.durability!.metrics().staleLeases + b.bot.durability!.metrics().staleLeases).toBe(0)
  })

  it('a replica that is alive keeps its leases, however long its handler takes — also for the messages of the chat queued behind it', async () => {
    const backend = new MemoryDurability()
    const release = deferred()
    const runs: string[] = []
    const t = await bots.start({
      durability: fast({ backend, instanceId: 'a', inbox: { leaseMs: 300 } }),
      setup: (bot) =>
        bot.when(TEXT, async (ctx) => {
          runs.push(ctx.message.text!)
          if (ctx.message.text === 'slow') await release.promise
          await ctx.reply(`re: ${ctx.message.text}`)
        }),
    })
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'slow' })
    await t.provider.receive({ id: 'm2', chatId: 'c1', text: 'queued' })
    const queued = (await t.bot.durability!.inbox.get(recordId('m2')))!
    // Let m2's first lease run out (by the journal's clock), then give the sweeper a few passes.
    await waitFor(() => Date.now() > queued.lease!.expiresAt + 20)
    await sweeps(t, 3)
    release.resolve()
    await waitFor(async () => (await t.bot.durability!.inbox.list({ state: 'done' })).length === 2)
    await t.bot.idle()
    expect(runs).toEqual(['slow', 'queued'])
    expect(t.bot.durability!.metrics()).toMatchObject({ inboundReplayed: 0, staleLeases: 0 })
  })
})

describe('The backend’s clock', () => {
  // The backend's clock is a ManualClock that stands still, so the lease stays live however slowly a
  // busy host heartbeats it; only a replica judging by its own clock (ten minutes ahead) would take it.
  it('lease expiry is judged by the backend’s clock: a replica whose own clock is ten minutes off neither steals a live lease nor keeps a dead one', async () => {
    const clock = new ManualClock()
    const backend = new MemoryDurability({ now: clock.now })
    const release = deferred()
    let runs = 0
    const setup = (bot: import('../../src/core/bot/bot.js').Bot) =>
      bot.when(TEXT, async () => {
        runs++
        await release.promise
      })
    const ahead = await bots.start({ durability: fast({ backend, instanceId: 'ahead', clock: () => Date.now() + 600_000 }), setup })
    const behind = await bots.start({ durability: fast({ backend, instanceId: 'behind', clock: () => Date.now() - 600_000 }), setup })
    await behind.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    const lease = (await behind.bot.durability!.inbox.get(recordId('m1')))!.lease!
    // Written on the backend's clock, not the replica's own.
    expect(Math.abs(lease.acquiredAt - clock.now())).toBeLessThan(60_000)
    await sweeps(ahead, 3)
    expect(runs).toBe(1)
    expect(ahead.bot.durability!.metrics().inboundReplayed).toBe(0)
    release.resolve()
    await waitFor(async () => (await behind.bot.durability!.inbox.get(recordId('m1')))!.state === 'done')
    expect(behind.bot.durability!.metrics().staleLeases).toBe(0)
  })
})

describe('Fencing', () => {
  it('every claim takes a new, larger token (inbox)', async () => {
    const store = new MemoryStore()
    vi.spyOn(store, 'getCheckpoint').mockRejectedValueOnce(new Error('down')).mockRejectedValueOnce(new Error('down'))
    const t = await bots.start({ store, durability: fast(), setup: (bot) => bot.when(TEXT, () => {}) })
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await waitFor(async () => (await t.bot.durability!.inbox.get(recordId('m1')))?.state === 'done')
    const tokens = [...t.tap!.written<InboxRecord>('inbox.admit'), ...t.tap!.written<InboxRecord>('inbox.claim')].map((r) => [
      r.lease!.token,
      r.fencingToken,
    ])
    expect(tokens).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
    ])
    expect((await t.bot.durability!.inbox.get(recordId('m1')))!.fencingToken).toBe(3)
  })

  it('every claim takes a new, larger token (outbox)', async () => {
    const t = await bots.start({ durability: fast() })
    t.provider.failNext(2)
    await t.bot.send('c1', 'hi', { idempotencyKey: 'k' })
    const journaled = t.tap!.written<OutboxRecord>('outbox.journal')[0]!
    const claims = t.tap!.written<OutboxRecord>('outbox.claim')
    expect([journaled.lease!.token, ...claims.map((r) => r.lease!.token)]).toEqual([1, 2, 3])
    expect(await t.bot.durability!.outbox.get('k')).toMatchObject({ state: 'sent', fencingToken: 3, lease: null })
  })

  it('if a lease expires (the process froze), another replica claims the record under a new token; the old holder’s completion is rejected and counted in `staleLeases` (inbox)', async () => {
    const backend = new MemoryDurability()
    const thaw = deferred()
    const release = deferred()
    let runs = 0
    const setup = (bot: import('../../src/core/bot/bot.js').Bot) =>
      bot.when(TEXT, async (ctx) => {
        runs++
        await ctx.reply('ack')
        if (runs === 1) await release.promise
      })
    const a = await bots.start({ durability: fast({ backend, instanceId: 'a', inbox: { leaseMs: 100 } }), setup })
    // "a" freezes: its heartbeats stop reaching the journal.
    a.tap!.intercept(async (call) => {
      if (call.op === 'write' && call.name === 'inbox.heartbeat') await thaw.promise
    })
    const b = await bots.start({ durability: fast({ backend, instanceId: 'b', inbox: { leaseMs: 100 } }), setup })
    await a.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await waitFor(async () => (await b.bot.durability!.inbox.get(recordId('m1')))?.state === 'done', {
      message: 'b replayed and completed m1',
    })
    expect(await b.bot.durability!.inbox.get(recordId('m1'))).toMatchObject({ fencingToken: 2, attempts: 2 })
    expect(b.bot.durability!.metrics()).toMatchObject({ inboundReplayed: 1, outboxDeduped: 1 })

    thaw.resolve()
    release.resolve()
    await waitFor(() => a.bot.durability!.metrics().staleLeases === 1)
    expect(await b.bot.durability!.inbox.get(recordId('m1'))).toMatchObject({ state: 'done', fencingToken: 2 })
    expect(runs).toBe(2)
    expect(a.provider.texts()).toEqual(['ack'])
    expect(b.provider.sent).toEqual([])
  })

  it('if a send’s lease expires (the process froze mid-call), another replica settles it; the old holder’s “sent” is rejected and counted in `staleLeases` (outbox)', async () => {
    const backend = new MemoryDurability()
    const thaw = deferred()
    const a = await bots.start({ durability: fast({ backend, instanceId: 'a', outbox: { leaseMs: 100 } }) })
    a.tap!.intercept(async (call) => {
      if (call.op === 'write' && call.name === 'outbox.heartbeat') await thaw.promise
    })
    const b = await bots.start({ durability: fast({ backend, instanceId: 'b', outbox: { leaseMs: 100 } }) })
    const gate = holdSends(a.provider)
    const sending = a.bot.send('c1', 'hello', { idempotencyKey: 'k' })
    await gate.reached()
    await waitFor(() => b.ambiguous.length === 1, { message: 'b settled the abandoned send' })
    expect(b.ambiguous).toEqual([{ key: 'k', chatId: 'c1' }])
    expect(await b.bot.durability!.outbox.get('k')).toMatchObject({ state: 'unknown' })

    thaw.resolve()
    gate.release()
    await sending.catch(() => undefined)
    await waitFor(() => a.bot.durability!.metrics().staleLeases === 1)
    expect(await b.bot.durability!.outbox.get('k')).toMatchObject({ state: 'unknown', providerMessageId: null })
    expect(a.provider.texts()).toEqual(['hello'])
    expect(b.provider.sent).toEqual([])
  })
})

describe('instanceId', () => {
  it('the default on a single-process backend (memory) is `<hostname>/<botId>/<connectionId>`', () => {
    const t = bots.create({ botId: 'support', connectionId: 'wa1', durability: { backend: new MemoryDurability() } })
    expect(t.bot.durability!.instanceId).toBe(`${hostname()}/support/wa1`)
  })

  it('the default on a shared backend adds a per-boot suffix, so two processes on one host never share it', async () => {
    const shared = () => new KvDurability(new MemoryKv(), { kind: 'shared-fake', shared: true })
    const one = bots.create({ durability: { backend: shared() } }).bot.durability!.instanceId
    const two = bots.create({ durability: { backend: shared() } }).bot.durability!.instanceId
    expect(one).toMatch(new RegExp(`^${hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/bot/default/[0-9a-f]{8}$`))
    // One boot, one suffix.
    expect(two).toBe(one)
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', './test-utils/ts-loader.mjs', 'test/fixtures/core/default-instance-id.ts'],
      { cwd: process.cwd() },
    )
    expect(stdout).toMatch(/\/bot\/default\/[0-9a-f]{8}$/)
    expect(stdout).not.toBe(one)
    // An explicit id is used as it is.
    expect(bots.create({ durability: { backend: shared(), instanceId: 'pod-0' } }).bot.durability!.instanceId).toBe('pod-0')
  })

  it('a restarted instance with the same id reclaims its own earlier leases at its first sweep, instead of waiting for them to expire', async () => {
    const shared = new MemoryDurability()
    const a = crashable(shared).crashAfter('outbox.journal')
    const durability = { inbox: { leaseMs: '60s' }, outbox: { leaseMs: '60s' } } as const
    const setup = (bot: import('../../src/core/bot/bot.js').Bot) => bot.when(TEXT, (ctx) => ctx.reply(`echo ${ctx.message.text}`))
    const first = await bots.start({
      provider: new CrashableProvider(a),
      durability: fast({ ...durability, backend: a, instanceId: 'i1' }),
      setup,
    })
    await first.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await a.whenCrashed()
    bots.abandon(first)
    expect(await shared.journal(first.bot.scope).count('outbox')).toEqual({ sending: 1 })

    const second = await bots.start({ durability: fast({ ...durability, backend: shared, instanceId: 'i1' }), setup })
    await sweeps(second, 1)
    // Within the first sweep, long before a 60 s lease could expire: the send settled, the inbound claimed.
    const inbound = (await second.bot.durability!.inbox.get(recordId('m1')))!
    expect(inbound.fencingToken).toBe(2)
    expect(second.ambiguous).toEqual([{ key: `${recordId('m1')}:1`, chatId: 'c1' }])
    await waitFor(async () => (await second.bot.durability!.inbox.get(recordId('m1')))!.state === 'done')
    expect(second.bot.durability!.metrics()).toMatchObject({ inboundReplayed: 1, outboxAmbiguous: 1 })
  })

  it('a restarted instance reclaims its own earlier leases at its first sweep — also when that sweep failed half-way (the backend briefly unreachable)', async () => {
    const shared = new MemoryDurability()
    const a = crashable(shared).crashAfter('outbox.journal')
    const durability = { inbox: { leaseMs: '60s' }, outbox: { leaseMs: '60s' } } as const
    const setup = (bot: import('../../src/core/bot/bot.js').Bot) => bot.when(TEXT, (ctx) => ctx.reply(`echo ${ctx.message.text}`))
    const first = await bots.start({
      provider: new CrashableProvider(a),
      durability: fast({ ...durability, backend: a, instanceId: 'i1' }),
      setup,
    })
    await first.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await a.whenCrashed()
    bots.abandon(first)

    const tapB = new TapBackend(shared)
    let failures = 1
    tapB.intercept((call) => {
      if (call.op === 'due' && call.kind === 'inbox' && failures-- > 0) throw new Error('connection reset')
    })
    const second = await bots.start({ durability: fast({ ...durability, backend: tapB, instanceId: 'i1' }), setup, untapped: true })
    await waitFor(async () => (await second.bot.durability!.inbox.get(recordId('m1')))!.state === 'done', {
      message: 'm1 reclaimed and replayed long before its 60 s lease',
    })
    // The sweep's failure is reported as the journal being unavailable, with the backend's own error in it.
    expect(second.errors.some((e) => e instanceof JournalUnavailableError && e.message.includes('connection reset'))).toBe(true)
    expect(second.ambiguous).toEqual([{ key: `${recordId('m1')}:1`, chatId: 'c1' }])
  })

  it('another instanceId (another replica, or a default id after a restart on a shared backend) waits for the old leases to expire', async () => {
    const shared = new MemoryDurability()
    const a = crashable(shared).crashAfter('inbox.admit')
    const setup = (bot: import('../../src/core/bot/bot.js').Bot) => bot.when(TEXT, (ctx) => ctx.reply(`echo ${ctx.message.text}`))
    const first = await bots.start({
      provider: new CrashableProvider(a),
      // A lease long enough that a loaded machine still sees it held at the second bot's first sweep.
      durability: fast({ backend: a, instanceId: 'host/bot/default/aaaa', inbox: { leaseMs: '3s' } }),
      setup,
    })
    void first.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await a.whenCrashed()
    bots.abandon(first)
    const second = await bots.start({
      durability: fast({ backend: shared, instanceId: 'host/bot/default/bbbb', inbox: { leaseMs: 300 } }),
      setup,
    })
    await sweeps(second, 1)
    expect(await second.bot.durability!.inbox.get(recordId('m1'))).toMatchObject({
      state: 'processing',
      fencingToken: 1,
      lease: { owner: 'host/bot/default/aaaa' },
    })
    // Once the lease expired, it is claimed under a new token and replayed.
    await waitFor(async () => (await second.bot.durability!.inbox.get(recordId('m1')))!.state === 'done', { timeoutMs: 30_000 })
    expect(await second.bot.durability!.inbox.get(recordId('m1'))).toMatchObject({ fencingToken: 2 })
    expect(second.provider.texts()).toEqual(['echo hi'])
  })

  it('a message arriving right after a restart waits behind what the dead run left of its chat', async () => {
    const shared = new MemoryDurability()
    const a = crashable(shared).crashAfter('inbox.admit')
    const setup = (bot: import('../../src/core/bot/bot.js').Bot) => bot.when(TEXT, (ctx) => ctx.reply(`echo ${ctx.message.text}`))
    const first = await bots.start({
      provider: new CrashableProvider(a),
      durability: fast({ backend: a, instanceId: 'i1', inbox: { leaseMs: '60s' } }),
      setup,
    })
    void first.provider.receive({ id: 'm1', chatId: 'c1', text: 'first' })
    await a.whenCrashed()
    bots.abandon(first)
    const second = await bots.start({ durability: fast({ backend: shared, instanceId: 'i1', inbox: { leaseMs: '60s' } }), setup })
    await second.provider.receive({ id: 'm2', chatId: 'c1', text: 'second' })
    await waitFor(async () => (await second.bot.durability!.inbox.get(recordId('m2')))?.state === 'done')
    await waitFor(async () => (await second.bot.durability!.inbox.get(recordId('m1')))?.state === 'done')
    expect(second.provider.texts()).toEqual(['echo first', 'echo second'])
  })

  it('the first sweep after the restart also reclaims a lease of the dead incarnation whose write landed late', async () => {
    const shared = new MemoryDurability()
    const lateWrite = deferred()
    const tapA = new TapBackend(shared)
    tapA.intercept(async (call) => {
      if (call.op === 'write' && call.name === 'inbox.admit') await lateWrite.promise
    })
    const a = crashable(tapA).crashAfter('inbox.admit')
    const setup = (bot: import('../../src/core/bot/bot.js').Bot) => bot.when(TEXT, (ctx) => ctx.reply(`echo ${ctx.message.text}`))
    const first = await bots.start({
      provider: new CrashableProvider(a),
      durability: fast({ backend: a, instanceId: 'i1', inbox: { leaseMs: '60s' } }),
      setup,
      untapped: true,
    })
    void first.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })

    // The restarted process is up, but its first sweep has not read the journal yet when the old write lands.
    const firstSweep = deferred()
    const tapB = new TapBackend(shared)
    let dueCalls = 0
    tapB.intercept(async (call) => {
      if (call.op === 'due' && dueCalls++ < 2) await firstSweep.promise
    })
    // start() runs the first sweep before it takes new messages: it waits at the gate meanwhile.
    const second = bots.create({ durability: fast({ backend: tapB, instanceId: 'i1', inbox: { leaseMs: '60s' } }), setup, untapped: true })
    const started = second.bot.start()
    await waitFor(() => dueCalls >= 1)
    lateWrite.resolve()
    await a.whenCrashed()
    bots.abandon(first)
    expect(await shared.journal(second.bot.scope).count('inbox')).toEqual({ processing: 1 })
    firstSweep.resolve()
    await started
    await waitFor(async () => (await second.bot.durability!.inbox.get(recordId('m1')))?.state === 'done')
    expect(second.provider.texts()).toEqual(['echo hi'])
    expect(second.bot.durability!.metrics().inboundReplayed).toBe(1)
  })

  it('the first sweep after the restart never reclaims a send (or an inbound) it is making itself', async () => {
    const shared = new MemoryDurability()
    const a = crashable(shared).crashBefore('outbox.markSent')
    const first = await bots.start({
      provider: new CrashableProvider(a),
      durability: fast({ backend: a, instanceId: 'i1', outbox: { leaseMs: '60s' }, inbox: { leaseMs: '60s' } }),
    })
    void first.bot.send('c1', 'from the dead', { idempotencyKey: 'dead-1' })
    await a.whenCrashed()
    bots.abandon(first)

    const firstSweep = deferred()
    const tapB = new TapBackend(shared)
    let dueCalls = 0
    tapB.intercept(async (call) => {
      if (call.op === 'due' && dueCalls++ < 2) await firstSweep.promise
    })
    const provider = new MockProvider()
    const gate = holdSends(provider, (_chat, content) => content === 'mine')
    const handlerRelease = deferred()
    const second = bots.create({
      provider,
      durability: fast({ backend: tapB, instanceId: 'i1', outbox: { leaseMs: '60s' }, inbox: { leaseMs: '60s' } }),
      untapped: true,
      setup: (bot) => bot.when(TEXT, () => handlerRelease.promise),
    })
    // start() runs the first sweep before it takes new messages; before that sweep reads the
    // journal, this incarnation starts a send.
    const started = second.bot.start()
    await waitFor(() => dueCalls >= 1)
    const mine = second.bot.send('c2', 'mine', { idempotencyKey: 'own-1' })
    await gate.reached()
    firstSweep.resolve()
    await started
    // A message it is handling is never taken back by its own later sweeps either.
    await provider.receive({ id: 'm2', chatId: 'c3', text: 'busy' })
    await waitFor(() => tapB.count('now') >= 4)
    expect(second.ambiguous).toEqual([{ key: 'dead-1', chatId: 'c1' }])
    expect(await second.bot.durability!.outbox.get('own-1')).toMatchObject({ state: 'sending', fencingToken: 1 })
    expect(await second.bot.durability!.inbox.get(recordId('m2', 'c3'))).toMatchObject({ state: 'processing', fencingToken: 1 })
    gate.release()
    handlerRelease.resolve()
    await mine
    await waitFor(async () => (await second.bot.durability!.inbox.get(recordId('m2', 'c3')))!.state === 'done')
    expect(await second.bot.durability!.outbox.get('own-1')).toMatchObject({ state: 'sent', fencingToken: 1 })
    expect(provider.texts()).toEqual(['mine'])
    expect(second.bot.durability!.metrics()).toMatchObject({ staleLeases: 0, inboundReplayed: 0 })
  })
})

describe('Two holders of one key', () => {
  it('a live send whose key another replica is sending right now is answered from the outbox once that send settles — it never waits on itself', async () => {
    const backend = new MemoryDurability()
    const t = await bots.start({
      durability: fast({ backend, instanceId: 'a' }),
      setup: (bot) => bot.when(TEXT, (ctx) => ctx.reply('the answer')),
    })
    // Another replica (replaying m1) is sending m1's first reply right now.
    const now = Date.now()
    const sending: OutboxRecord = {
      key: `${recordId('m1')}:1`,
      state: 'sending',
      chatId: 'c1',
      payload: 'the answer',
      fingerprint: null,
      keySource: 'derived',
      inboundId: recordId('m1'),
      ordinal: 1,
      previousPart: null,
      nextPart: null,
      attempts: 0,
      nextAttemptAt: null,
      // Live for the whole test: the other replica is alive, and its send settles when the test says.
      lease: { owner: 'b', token: 1, expiresAt: now + 60_000, acquiredAt: now },
      fencingToken: 1,
      providerMessageId: null,
      lastError: null,
      createdAt: now,
      updatedAt: now,
    }
    const journal = backend.journal(t.bot.scope)
    const [inserted] = await journal.write('outbox.journal', [{ kind: 'outbox', record: sending, expectVersion: 0 }])
    expect(inserted!.ok).toBe(true)
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    // The handler's reply found the key taken (its insert lost the compare-and-set)…
    await waitFor(() => t.tap!.writes.some((w) => w.name === 'outbox.journal' && !w.results[0]!.ok))
    // … and then the other replica's send lands.
    const [current] = await journal.read('outbox', [`${recordId('m1')}:1`])
    await journal.write('outbox.markSent', [
      {
        kind: 'outbox',
        record: { ...current!.record, state: 'sent', lease: null, providerMessageId: 'elsewhere-1', attempts: 1 },
        expectVersion: current!.version,
      },
    ])
    await waitFor(async () => (await t.bot.durability!.inbox.get(recordId('m1')))?.state === 'done', {
      message: 'm1 done (its reply settled)',
    })
    expect(t.provider.sent).toEqual([])
  })
})
