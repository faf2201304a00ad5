/**
 * The seed's "Configuration" table: every option of BotConfig.durability, its default, durations as
 * strings or milliseconds, and validation.
 */
import { hostname } from 'node:os'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { MemoryDurability } from '../../src/core/index.js'
import { Bot } from '../../src/core/bot/bot.js'
import { resolveDurabilityConfig, type DurabilityOptions } from '../../src/core/durability/config.js'
import { KvDurability } from '../../src/core/durability/journal/kv-durability.js'
import { ConfigError, SendDeadError } from '../../src/core/errors/errors.js'
import { ProviderError } from '../../src/core/provider/provider-errors.js'
import { MemoryStore } from '../../src/core/store/store.js'
import { MockProvider } from '../../src/testing/mock-provider.js'
import { TEXT } from '../../src/core/bot/matchers.js'
import { waitFor, deferred } from '../../test-utils/wait.js'
import { fast, holdSends, recordId, useBots } from './helpers.js'

const namespace = { tenantId: 't', environmentId: 'e', botId: 'support', connectionId: 'wa1' }
const resolve = (options: DurabilityOptions) => resolveDurabilityConfig(options, namespace, new MemoryDurability())

/** Expects `new Bot` to refuse the durability options with a ConfigError naming `option`. */
function expectRefused(durability: DurabilityOptions, option: string | RegExp): ConfigError {
  let caught: unknown
  try {
    new Bot({ provider: new MockProvider(), durability })
  } catch (error) {
    caught = error
  }
  expect(caught).toBeInstanceOf(ConfigError)
  expect((caught as ConfigError).code).toBe('CONFIG_INVALID')
  expect((caught as ConfigError).message).toMatch(option)
  return caught as ConfigError
}

describe('Configuration: defaults', () => {
  const bots = useBots()
  afterEach(() => {
    vi.restoreAllMocks()
  })

  it('every option resolves to the default of the seed’s table', () => {
    const config = resolve({})
    expect(config).toMatchObject({
      instanceId: `${hostname()}/support/wa1`,
      failOpen: false,
      inbox: { leaseMs: 60_000, maxAttempts: 5, backoff: { baseMs: 1000, capMs: 60_000, jitter: 0.2 }, mediaRefs: true },
      outbox: {
        retries: 5,
        backoff: { baseMs: 1000, capMs: 60_000, jitter: 0.2 },
        inlineMaxMs: 15_000,
        onAmbiguous: 'skip',
        onDiverged: 'send',
        maxPayloadBytes: 1024 * 1024,
        leaseMs: 60_000,
        reconcileMs: 30_000,
      },
      pollMs: 1000,
      retentionMs: 7 * 24 * 3600 * 1000,
    })
  })

  it('`backend`: a new `MemoryDurability` (the default with `durability: {}`)', async () => {
    const journal = vi.spyOn(KvDurability.prototype, 'journal')
    const provider = new MockProvider()
    const { bot } = await bots.start({ provider, durability: {}, untapped: true, setup: (b) => b.when(TEXT, (ctx) => ctx.reply('ok')) })
    expect(journal.mock.contexts[0]).toBeInstanceOf(MemoryDurability)
    await provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await bot.idle()
    expect((await bot.durability!.inbox.list({ state: 'done' })).map((r) => r.id)).toEqual([recordId('m1')])
    expect((await bot.durability!.outbox.list({ state: 'sent' })).map((r) => r.key)).toEqual([`${recordId('m1')}:1`])
  })

  it('`instanceId`: `<hostname>/<botId>/<connectionId>` on a single-process backend', async () => {
    const { bot } = bots.create({ botId: 'support', connectionId: 'wa1', durability: { backend: new MemoryDurability() } })
    expect(bot.durability!.instanceId).toBe(`${hostname()}/support/wa1`)
    const { bot: plain } = bots.create({ durability: {} })
    expect(plain.durability!.instanceId).toBe(`${hostname()}/bot/default`)
  })

  it('`failOpen`: `false`', () => {
    expect(resolve({}).failOpen).toBe(false)
    expect(resolve({ failOpen: true }).failOpen).toBe(true)
  })

  it("`inbox.leaseMs`: `'60s'` — a processing record is leased for 60 000 ms", async () => {
    const provider = new MockProvider()
    const entered = deferred()
    const release = deferred()
    const { bot } = await bots.start({
      provider,
      durability: { backend: new MemoryDurability(), instanceId: 'i1' },
      setup: (b) =>
        b.when(TEXT, async () => {
          entered.resolve()
          await release.promise
        }),
    })
    await provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await entered.promise
    const [record] = await bot.durability!.inbox.list({ state: 'processing' })
    expect(record!.lease!.owner).toBe('i1')
    expect(record!.lease!.expiresAt - record!.lease!.acquiredAt).toBe(60_000)
    release.resolve()
    await bot.idle()
  })

  it("`outbox.leaseMs`: `'60s'` — a send in flight is leased for 60 000 ms", async () => {
    const provider = new MockProvider()
    const gate = holdSends(provider)
    const { bot } = await bots.start({ provider, durability: { backend: new MemoryDurability() } })
    const sending = bot.send('c1', 'hello', { idempotencyKey: 'k1' })
    await gate.reached()
    const record = await bot.durability!.outbox.get('k1')
    expect(record!.state).toBe('sending')
    expect(record!.lease!.expiresAt - record!.lease!.acquiredAt).toBe(60_000)
    gate.release()
    await sending
  })

  it('`inbox.maxAttempts`: `5` — runs charged before an inbound event that keeps failing is dead-lettered', async () => {
    const store = new MemoryStore()
    // The store is down: routing (before any handler) fails on every run.
    vi.spyOn(store, 'getCheckpoint').mockRejectedValue(new Error('store down'))
    const provider = new MockProvider()
    const t = await bots.start({
      provider,
      store,
      durability: { backend: new MemoryDurability(), pollMs: 10, inbox: { backoff: { baseMs: 1, capMs: 4, jitter: 0 } } },
      setup: (b) => b.when(TEXT, (ctx) => ctx.reply('never')),
    })
    await provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await waitFor(() => t.dead.length === 1)
    const record = await t.bot.durability!.inbox.get(recordId('m1'))
    expect(record).toMatchObject({ state: 'dead', attempts: 5 })
    expect(store.getCheckpoint).toHaveBeenCalledTimes(5)
  })

  it('`outbox.retries`: `5` — retries after the first attempt before a send is dead-lettered (6 provider calls at most)', async () => {
    const provider = new MockProvider()
    let calls = 0
    provider.failNext(100, new ProviderError('DOWN', 'down'), () => (calls++, true))
    const t = await bots.start({
      provider,
      durability: { backend: new MemoryDurability(), outbox: { backoff: { baseMs: 1, capMs: 2, jitter: 0 } } },
    })
    await expect(t.bot.send('c1', 'hello', { idempotencyKey: 'k1' })).rejects.toBeInstanceOf(SendDeadError)
    expect(calls).toBe(6)
    expect(await t.bot.durability!.outbox.get('k1')).toMatchObject({ state: 'dead', attempts: 6 })
  })

  it('`outbox.backoff`: as `inbox.backoff`', () => {
    const inbox = { baseMs: 7, capMs: 70, jitter: 0.1 }
    expect(resolve({ inbox: { backoff: inbox } }).outbox.backoff).toEqual(inbox)
    expect(resolve({ inbox: { backoff: inbox }, outbox: { backoff: { baseMs: 3 } } }).outbox.backoff).toEqual({
      baseMs: 3,
      capMs: 70,
      jitter: 0.1,
    })
    expect(resolve({ inbox: { backoff: { capMs: 5000 } } }).inbox.backoff).toEqual({ baseMs: 1000, capMs: 5000, jitter: 0.2 })
  })

  it('`outbox.maxPayloadBytes`: 1 MiB — larger payloads bypass the outbox', async () => {
    const provider = new MockProvider()
    const t = await bots.start({ provider, durability: { backend: new MemoryDurability() } })
    // Base64 grows a Buffer by 4/3: 700 000 bytes journal as ~0.93 MB, 800 000 as ~1.07 MB.
    await t.bot.send('c1', { media: { type: 'document', buffer: Buffer.alloc(700_000, 1) } }, { idempotencyKey: 'small' })
    await t.bot.send('c1', { media: { type: 'document', buffer: Buffer.alloc(800_000, 1) } }, { idempotencyKey: 'large' })
    expect(provider.sent).toHaveLength(2)
    expect((await t.bot.durability!.outbox.get('small'))!.state).toBe('sent')
    expect(await t.bot.durability!.outbox.get('large')).toBeUndefined()
    expect(t.bot.durability!.metrics().outboxBypassed).toBe(1)
  })
})

describe("Configuration: durations take a string ('15s') or milliseconds", () => {
  it.each([
    ['inbox.leaseMs', { inbox: { leaseMs: '2m' } }, (c: ReturnType<typeof resolve>) => c.inbox.leaseMs, 120_000],
    ['inbox.leaseMs', { inbox: { leaseMs: 250 } }, (c: ReturnType<typeof resolve>) => c.inbox.leaseMs, 250],
    ['outbox.inlineMaxMs', { outbox: { inlineMaxMs: '15s' } }, (c: ReturnType<typeof resolve>) => c.outbox.inlineMaxMs, 15_000],
    ['outbox.inlineMaxMs', { outbox: { inlineMaxMs: 2500 } }, (c: ReturnType<typeof resolve>) => c.outbox.inlineMaxMs, 2500],
    ['outbox.leaseMs', { outbox: { leaseMs: '1.5s' } }, (c: ReturnType<typeof resolve>) => c.outbox.leaseMs, 1500],
    ['pollMs', { pollMs: '250ms' }, (c: ReturnType<typeof resolve>) => c.pollMs, 250],
    ['pollMs', { pollMs: 20 }, (c: ReturnType<typeof resolve>) => c.pollMs, 20],
    ['retention', { retention: '7d' }, (c: ReturnType<typeof resolve>) => c.retentionMs, 604_800_000],
    ['retention', { retention: '1h' }, (c: ReturnType<typeof resolve>) => c.retentionMs, 3_600_000],
    ['retention', { retention: 0 }, (c: ReturnType<typeof resolve>) => c.retentionMs, 0],
  ] as const)('%s given as %j', (_option, options, pick, expected) => {
    expect(pick(resolve(options as DurabilityOptions))).toBe(expected)
  })

  it.each([
    [{ pollMs: 'soon' }, 'durability.pollMs'],
    [{ inbox: { leaseMs: 'forever' } }, 'durability.inbox.leaseMs'],
    [{ outbox: { inlineMaxMs: -1 } }, 'durability.outbox.inlineMaxMs'],
    [{ retention: Number.NaN }, 'durability.retention'],
  ])('a duration that is not one is refused, naming the option (%j)', (durability, option) => {
    expectRefused(durability as DurabilityOptions, option)
  })
})

describe('Configuration: validation', () => {
  it('`outbox.leaseMs` under 20 ms refuses the config, with a clear error', () => {
    const error = expectRefused({ outbox: { leaseMs: 19 } }, 'durability.outbox.leaseMs')
    expect(error.message).toMatch(/at least 20 ms/)
    expect(error.message).toMatch(/got 19 ms/)
    expectRefused({ outbox: { leaseMs: '10ms' } }, /outbox\.leaseMs must be at least 20 ms; got 10 ms/)
    expect(() => new Bot({ provider: new MockProvider(), durability: { outbox: { leaseMs: 20 } } })).not.toThrow()
  })

  it.each([
    [{ inbox: { maxAttempts: 0 } }, 'durability.inbox.maxAttempts'],
    [{ inbox: { maxAttempts: 1.5 } }, 'durability.inbox.maxAttempts'],
    [{ outbox: { retries: -1 } }, 'durability.outbox.retries'],
    [{ outbox: { onAmbiguous: 'maybe' } }, 'durability.outbox.onAmbiguous'],
    [{ outbox: { onDiverged: 'merge' } }, 'durability.outbox.onDiverged'],
    [{ outbox: { maxPayloadBytes: 0 } }, 'durability.outbox.maxPayloadBytes'],
    [{ outbox: { reconcileMs: 'soon' } }, 'durability.outbox.reconcileMs'],
    [{ inbox: { backoff: { baseMs: 100, capMs: 10 } } }, 'durability.inbox.backoff'],
    [{ outbox: { backoff: { jitter: 1.5 } } }, 'durability.outbox.backoff.jitter'],
    [{ pollMs: 0 }, 'durability.pollMs'],
    [{ instanceId: '  ' }, 'durability.instanceId'],
  ])('an invalid option is refused, naming it (%j)', (durability, option) => {
    expectRefused(durability as DurabilityOptions, option)
  })

  it('`outbox.retries: 0` is allowed (one provider call, then the DLQ)', () => {
    expect(resolve({ outbox: { retries: 0 } }).outbox.retries).toBe(0)
  })

  it('a namespace field with a slash is refused', () => {
    expect(() => new Bot({ provider: new MockProvider(), botId: 'a/b' })).toThrow(ConfigError)
  })
})
