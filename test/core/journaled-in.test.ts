/**
 * `journaledIn(store)`: the store and its own journals for a bot's config, an explicit call beside
 * the contract's defaults (`durability: {}` stays in memory). The README's first bot runs it on a
 * SQLite file (test/readme/snippets.test.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, expectTypeOf, it } from 'vitest'
import { SQLiteStore } from '../../src/backends/sqlite/index.js'
import type { PostgresStore } from '../../src/backends/postgres/index.js'
import type { RedisStore } from '../../src/backends/redis/index.js'
import { Bot } from '../../src/core/bot/bot.js'
import { journaledIn, type JournalingStore } from '../../src/core/store/journaled-in.js'
import { MemoryDurability } from '../../src/core/durability/memory/memory-durability.js'
import { MockProvider } from '../../src/testing/mock-provider.js'

const dir = mkdtempSync(join(tmpdir(), 'journaled-in-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('journaledIn', () => {
  it("hands back the store and durability options whose backend is the store's own journals, the options kept", () => {
    const store = new SQLiteStore({ file: join(dir, 'a.db') })
    const parts = journaledIn(store, { instanceId: 'bot-1', outbox: { retries: 2 } })
    expect(parts.store).toBe(store)
    expect(parts.durability).toEqual({ instanceId: 'bot-1', outbox: { retries: 2 }, backend: store.durability() })
    expect(parts.durability.backend).toBe(store.durability())
    expectTypeOf(parts.store).toEqualTypeOf<SQLiteStore>()
    // @ts-expect-error: the backend is the store's; another one is not journaledIn's to take
    journaledIn(store, { backend: new MemoryDurability() })
  })

  it('takes every store that keeps journals, and no store that does not', () => {
    expectTypeOf<SQLiteStore>().toMatchTypeOf<JournalingStore>()
    expectTypeOf<RedisStore>().toMatchTypeOf<JournalingStore>()
    expectTypeOf<PostgresStore>().toMatchTypeOf<JournalingStore>()
    // @ts-expect-error: a MemoryStore has no journals of its own
    expect(() => journaledIn(new (class {})())).toThrow(TypeError)
  })

  it("a bot on it journals in the store's own journals", async () => {
    const store = new SQLiteStore({ file: join(dir, 'b.db') })
    const provider = new MockProvider()
    const bot = new Bot({ provider, ...journaledIn(store) })
    await bot.start()
    try {
      await provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
      await bot.idle()
      const [inbound] = await bot.durability!.inbox.list()
      const [read] = await store.durability().journal(bot.durability!.scope).read('inbox', [inbound!.id])
      expect(read?.record).toMatchObject({ id: inbound!.id, state: 'done' })
    } finally {
      await bot.stop()
    }
  })
})
