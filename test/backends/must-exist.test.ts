/**
 * `mustExist: true` (what the CLI's reads and changes open with): a backend whose journal is not
 * there refuses to start with JOURNAL_MISSING, naming what it looked for and what it found, and
 * creates nothing: no file, no table, no key. Once a journal exists it starts as usual.
 */
import { existsSync, readdirSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it } from 'vitest'
import { PostgresDurability } from '../../src/backends/postgres/index.js'
import { RedisDurability } from '../../src/backends/redis/index.js'
import { SQLiteDurability } from '../../src/backends/sqlite/index.js'
import type { DurabilityBackend } from '../../src/core/durability/journal/backend.js'
import { PG_URL, dropTablePrefix, postgresAvailable, randomTablePrefix, tablesUnder } from '../../test-utils/postgres.js'
import { REDIS_URL, deletePrefix, randomPrefix, redisAvailable, scanKeys } from '../../test-utils/redis.js'

const pgUp = await postgresAvailable()
const redisUp = await redisAvailable('mustExist on Redis')

const cleanups: (() => Promise<unknown>)[] = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

/** Starts `backend`, expecting JOURNAL_MISSING; returns the message. */
async function refusedStart(backend: DurabilityBackend): Promise<string> {
  const error = await backend.start().then(
    () => undefined,
    (failure: unknown) => failure as { code?: string; message: string },
  )
  await backend.stop()
  expect(error?.code).toBe('JOURNAL_MISSING')
  return error!.message
}

/** Starts a backend that may create, writes one record in the root scope, stops it. */
async function writeOne(backend: SQLiteDurability | PostgresDurability | RedisDurability): Promise<void> {
  await backend.start()
  try {
    await backend.kv.write([
      { op: 'put', collection: 'inbox', key: 'k', expectVersion: 0, value: {}, state: 'done', stateTime: 1, due: null },
    ])
  } finally {
    await backend.stop()
  }
}

describe('SQLite', () => {
  it('refuses a missing file and a file without the durable table, creating nothing; starts on a journal', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'botmesh-must-exist-'))
    cleanups.push(() => rm(dir, { recursive: true, force: true }))
    const file = join(dir, 'bot.db')
    expect(await refusedStart(new SQLiteDurability({ file, mustExist: true }))).toContain(`${file} does not exist`)
    expect(readdirSync(dir)).toEqual([])
    await writeOne(new SQLiteDurability({ file }))
    const reader = new SQLiteDurability({ file, mustExist: true })
    await reader.start()
    expect(await reader.scopes()).toEqual([''])
    await reader.stop()
  })
})

describe.runIf(pgUp)('PostgreSQL', () => {
  it('refuses a prefix without its table, naming the nearest prefix with one, creating nothing; starts on a journal', async () => {
    const existing = randomTablePrefix()
    const missing = `${existing.slice(0, -2)}${existing.at(-2) === 'a' ? 'b' : 'a'}_`
    cleanups.push(
      () => dropTablePrefix(existing),
      () => dropTablePrefix(missing),
    )
    await writeOne(new PostgresDurability({ connectionString: PG_URL, tablePrefix: existing }))
    const message = await refusedStart(new PostgresDurability({ connectionString: PG_URL, tablePrefix: missing, mustExist: true }))
    expect(message).toContain(`"${missing}durable" (tablePrefix "${missing}")`)
    expect(message).toContain(`nearest first: "${existing}"`)
    expect(await tablesUnder(missing)).toEqual([])
    const reader = new PostgresDurability({ connectionString: PG_URL, tablePrefix: existing, mustExist: true })
    await reader.start()
    expect(await reader.scopes()).toEqual([''])
    await reader.stop()
  })
})

describe.runIf(redisUp)('Redis', () => {
  it('refuses a prefix nothing was written under, naming the nearest prefix with a journal, creating nothing; starts on a journal', async () => {
    const admin = new Redis(REDIS_URL)
    const existing = randomPrefix()
    const missing = `${existing.slice(0, -1)}${existing.at(-1) === 'a' ? 'b' : 'a'}`
    cleanups.push(async () => {
      await deletePrefix(admin, existing)
      await deletePrefix(admin, missing)
      admin.disconnect()
    })
    await writeOne(new RedisDurability({ url: REDIS_URL, prefix: existing }))
    const message = await refusedStart(new RedisDurability({ url: REDIS_URL, prefix: missing, mustExist: true }))
    expect(message).toContain(`no key ${missing}:{durable:scopes}`)
    expect(message).toContain(`nearest first: "${existing}"`)
    expect(await scanKeys(admin, `${missing}*`)).toEqual([])
    const reader = new RedisDurability({ url: REDIS_URL, prefix: existing, mustExist: true })
    await reader.start()
    expect(await reader.scopes()).toEqual([''])
    await reader.stop()
  })

  it('refuses a database the server does not have instead of using database 0', async () => {
    const url = new URL(REDIS_URL)
    url.pathname = '/99'
    const backend = new RedisDurability({ url: url.toString(), prefix: randomPrefix() })
    await expect(backend.start()).rejects.toMatchObject({ code: 'CONFIG_INVALID', message: expect.stringContaining('no database 99') })
    await backend.stop()
  })
})

describe('nothing is left behind by a refused start', () => {
  it('a refused SQLite start leaves no directory either', async () => {
    const dir = join(tmpdir(), `botmesh-must-exist-none-${process.pid}-${Date.now()}`)
    await refusedStart(new SQLiteDurability({ file: join(dir, 'bot.db'), mustExist: true }))
    expect(existsSync(dir)).toBe(false)
  })
})
