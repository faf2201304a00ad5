/**
 * Inputs at the journal's limits, on every backend (memory, file, SQLite, Redis, PostgreSQL): an
 * inbound id or an idempotency key of 10,000 characters, and a NUL in a chat id, are journaled under
 * one documented limit (a digest past LIMITS.idBytesMax bytes), answered once and recognised when
 * delivered again; an event the journal can never hold (a circular field, a null id or chat id) is
 * refused with a final error of its own code, never JOURNAL_UNAVAILABLE.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { FileDurability } from '../../src/backends/file/index.js'
import { PostgresDurability } from '../../src/backends/postgres/index.js'
import { RedisDurability } from '../../src/backends/redis/index.js'
import { SQLiteStore } from '../../src/backends/sqlite/index.js'
import { Bot } from '../../src/core/bot/bot.js'
import type { DurabilityBackend } from '../../src/core/durability/journal/backend.js'
import { LIMITS } from '../../src/core/durability/limits.js'
import { MemoryDurability } from '../../src/core/durability/memory/memory-durability.js'
import { BotmeshError } from '../../src/core/errors/errors.js'
import { TEXT } from '../../src/core/bot/matchers.js'
import type { InboundEvent } from '../../src/core/provider/provider.js'
import { MockProvider } from '../../src/testing/mock-provider.js'
import { dropTablePrefix, PG_URL, postgresAvailable, randomTablePrefix } from '../../test-utils/postgres.js'
import { deletePrefix, randomPrefix, REDIS_URL, redisAvailable } from '../../test-utils/redis.js'
import { Redis } from 'ioredis'

const [pgUp, redisUp] = await Promise.all([postgresAvailable(), redisAvailable('input limits on the machine Redis')])
const dir = mkdtempSync(join(tmpdir(), 'botmesh-limits-'))
const cleanups: (() => Promise<unknown>)[] = []
afterAll(async () => {
  await Promise.all(cleanups.map((cleanup) => cleanup()))
  rmSync(dir, { recursive: true, force: true })
})

let files = 0
const BACKENDS: { name: string; up: boolean; create(): Promise<DurabilityBackend> }[] = [
  { name: 'memory', up: true, create: async () => new MemoryDurability() },
  { name: 'file', up: true, create: () => FileDurability.open(join(dir, `journal-${++files}.json`)) },
  { name: 'SQLite', up: true, create: async () => new SQLiteStore({ file: join(dir, `bot-${++files}.db`) }).durability() },
  {
    name: 'Redis',
    up: redisUp,
    create: async () => {
      const prefix = randomPrefix()
      cleanups.push(async () => {
        const admin = new Redis(REDIS_URL)
        await deletePrefix(admin, prefix)
        await admin.quit()
      })
      return new RedisDurability({ url: REDIS_URL, prefix })
    },
  },
  {
    name: 'PostgreSQL',
    up: pgUp,
    create: async () => {
      const tablePrefix = randomTablePrefix()
      cleanups.push(() => dropTablePrefix(tablePrefix))
      return new PostgresDurability({ connectionString: PG_URL, tablePrefix, logger: { error: () => {} } })
    },
  },
]

async function startBot(backend: DurabilityBackend, coordination = false) {
  const provider = new MockProvider()
  const errors: unknown[] = []
  const bot = new Bot({ provider, durability: { backend, instanceId: 'limits', pollMs: 20, coordination } })
  bot.on('error', (error) => errors.push(error))
  const refs: string[] = []
  bot.when(TEXT, async (ctx) => {
    refs.push(ctx.ref.id)
    await ctx.reply(`answer ${ctx.message.text}`)
  })
  await bot.start()
  return { bot, provider, errors, refs }
}

async function refusal(promise: Promise<unknown>): Promise<BotmeshError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  expect(error).toBeInstanceOf(BotmeshError)
  return error as BotmeshError
}

describe.each(BACKENDS)('input limits on $name', ({ up, create }) => {
  it.runIf(up)('a 10,000-character id, a 10,000-character key and a NUL in a chat id are answered once, and recognised again', async () => {
    for (const coordination of [false, true]) {
      const { bot, provider, errors, refs } = await startBot(await create(), coordination)
      const long: InboundEvent = { id: `wamid.${'x'.repeat(10_000)}`, chatId: `c-${'y'.repeat(10_000)}`, text: 'long' }
      const nul: InboundEvent = { id: 'm\u0000null', chatId: 'chat\u0000with-nul', text: 'nul' }
      for (let delivery = 0; delivery < 2; delivery++) {
        await provider.receive(long)
        await provider.receive(nul)
        await bot.idle()
      }
      const key = `invoice:${'z'.repeat(10_000)}`
      const first = await bot.enqueue('c1', 'invoice', { idempotencyKey: key })
      const second = await bot.enqueue('c1', 'invoice', { idempotencyKey: key })
      await bot.idle()
      await bot.stop()

      expect(errors).toEqual([])
      expect(provider.texts().sort()).toEqual(['answer long', 'answer nul', 'invoice'])
      expect(second.key).toBe(first.key)
      for (const id of [...refs, first.key]) {
        expect(Buffer.byteLength(id)).toBeLessThanOrEqual(LIMITS.idBytesMax)
        expect(id).not.toContain('\u0000')
      }
      // The two chats run side by side: the long one's record id is among the refs, in either place.
      expect(refs).toContainEqual(expect.stringMatching(/^mock:c-y+~sha256:[0-9a-f]{64}$/))
    }
  })

  it.runIf(up)('refuses an event the journal can never hold with a final error of its own code', async () => {
    const { bot, provider, errors } = await startBot(await create())
    const circular: Record<string, unknown> = { name: 'loop' }
    circular.self = circular
    const notJson = await refusal(provider.receive({ id: 'm1', chatId: 'c1', text: 'hi', interaction: circular as never }))
    expect(notJson).toMatchObject({ code: 'EVENT_NOT_JOURNALABLE', retryable: false })
    expect(notJson.message).toMatch(/"interaction" is not JSON/)

    for (const [event, field] of [
      [{ id: null, chatId: 'c1', text: 'x' }, 'id'],
      [{ id: 'm2', chatId: null, text: 'x' }, 'chatId'],
      [{ id: 42, chatId: 'c1', text: 'x' }, 'id'],
      [{ id: 'm3', chatId: '', text: 'x' }, 'chatId'],
    ] as const) {
      const invalid = await refusal(provider.receive(event as unknown as InboundEvent))
      expect(invalid).toMatchObject({ code: 'EVENT_INVALID', retryable: false })
      expect(invalid.message).toContain(`its ${field} is`)
    }
    await bot.idle()
    await bot.stop()
    expect(errors.map((error) => (error as BotmeshError).code)).toEqual(['EVENT_NOT_JOURNALABLE', ...Array(4).fill('EVENT_INVALID')])
    expect(provider.sent).toEqual([])
  })
})
