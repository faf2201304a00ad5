/**
 * A custom backend whose DurableKv has no scope() keeps every bot's records together, so it must
 * not be shared between bots: in one process the second bot (another scope) is refused at start,
 * with an error naming the missing scope(). Replicas of one bot (the same scope) may share it, and
 * a backend with scopes is shared freely.
 */
import { describe, expect, it } from 'vitest'
import { Bot } from '../../src/core/bot/bot.js'
import { MemoryKv } from '../../src/core/durability/memory/memory-kv.js'
import { KvDurability } from '../../src/core/durability/journal/kv-durability.js'
import type { DurableKv } from '../../src/core/durability/journal/kv.js'
import { ConfigError } from '../../src/core/errors/errors.js'
import { MemoryDurability } from '../../src/core/index.js'
import { MockProvider } from '../../src/testing/mock-provider.js'
import { fast, useBots } from './helpers.js'

const bots = useBots()

/** A DurableKv over one MemoryKv view, without scope(): what a hand-written backend may look like. */
function unscopedKv(): DurableKv {
  const inner = new MemoryKv()
  return {
    start: () => inner.start(),
    stop: () => inner.stop(),
    now: () => inner.now(),
    get: (collection, keys) => inner.get(collection, keys),
    write: (ops) => inner.write(ops),
    due: (collection, until, limit) => inner.due(collection, until, limit),
    list: (collection, query) => inner.list(collection, query),
    count: (collection) => inner.count(collection),
    purge: (collection, state, olderThan, limit) => inner.purge(collection, state, olderThan, limit),
  }
}

describe('a backend without scope() shared by two bots in one process', () => {
  it('refuses the second bot’s start, naming the missing scope(); after the first stops, the second starts', async () => {
    const backend = new KvDurability(unscopedKv(), { kind: 'custom' })
    expect(backend.scoped).toBe(false)
    const a = await bots.start({ botId: 'reminders', durability: fast({ backend }), untapped: true })
    const b = bots.create({ botId: 'billing', durability: fast({ backend }), untapped: true })
    const error = await b.bot.start().then(
      () => undefined,
      (caught: unknown) => caught,
    )
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as Error).message).toMatch(/has no scope\(\)/)
    expect((error as Error).message).toContain(a.bot.scope)
    expect((error as Error).message).toContain(b.bot.scope)

    // The first bot's explicit key is its own: nothing of the second bot went into the journal.
    await a.bot.enqueue('c1', 'remind A', { idempotencyKey: 'reminder:1' })
    await a.bot.idle()
    expect(a.provider.texts()).toEqual(['remind A'])

    await a.bot.stop()
    await b.bot.start()
    await b.bot.stop()
  })

  it('lets replicas of one bot (the same scope) share it, and any bots share a backend with scopes', async () => {
    const backend = new KvDurability(unscopedKv(), { kind: 'custom' })
    await bots.start({ botId: 'reminders', durability: fast({ backend, instanceId: 'r1' }), untapped: true })
    await bots.start({ botId: 'reminders', durability: fast({ backend, instanceId: 'r2' }), untapped: true })

    const shared = new MemoryDurability()
    const a = await bots.start({ botId: 'reminders', durability: fast({ backend: shared }), untapped: true })
    const b = await bots.start({ botId: 'billing', durability: fast({ backend: shared }), untapped: true })
    await a.bot.enqueue('c1', 'remind A', { idempotencyKey: 'reminder:1' })
    await b.bot.enqueue('c1', 'remind B', { idempotencyKey: 'reminder:1' })
    await Promise.all([a.bot.idle(), b.bot.idle()])
    expect([...a.provider.texts(), ...b.provider.texts()]).toEqual(['remind A', 'remind B'])
  })

  it('refuses it too through a second KvDurability over the same store', async () => {
    const kv = unscopedKv()
    const a = await bots.start({
      botId: 'reminders',
      durability: fast({ backend: new KvDurability(kv, { kind: 'custom' }) }),
      untapped: true,
    })
    const b = bots.create({ botId: 'billing', durability: fast({ backend: new KvDurability(kv, { kind: 'custom' }) }), untapped: true })
    await expect(b.bot.start()).rejects.toThrow(/has no scope\(\)/)
    await a.bot.enqueue('c1', 'remind A', { idempotencyKey: 'reminder:1' })
    await a.bot.idle()
    expect(a.provider.texts()).toEqual(['remind A'])
  })

  it('does not keep a failed start’s claim', async () => {
    const kv = unscopedKv()
    kv.start = () => Promise.reject(new Error('store down'))
    const backend = new KvDurability(kv, { kind: 'custom' })
    const first = new Bot({ provider: new MockProvider(), botId: 'one', durability: fast({ backend }) })
    await expect(first.start()).rejects.toThrow('store down')
    kv.start = () => Promise.resolve()
    await bots.start({ botId: 'two', durability: fast({ backend }), untapped: true })
  })
})
