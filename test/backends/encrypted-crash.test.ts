/**
 * The crash matrix with `durability.encryption` on, on every kind of backend: each crash point
 * before and after (policy 'skip') plus a seeded random case, every generation sealing its journal
 * under the same key. Besides the matrix's own verdict (nothing lost, nothing sent twice, the
 * journal settled), each case checks that no record's content reached the backend in clear. The
 * factories are those of each backend's own crash test: a restart reopens the storage as the next
 * process would.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { afterAll, describe } from 'vitest'
import { durableTables, PostgresDurability } from '../../src/backends/postgres/index.js'
import { RedisDurability } from '../../src/backends/redis/index.js'
import { SQLiteDurability } from '../../src/backends/sqlite/index.js'
import { MemoryDurability } from '../../src/core/index.js'
import { describeCrashMatrix, type CrashMatrixSelection } from '../../test-utils/durability-crash.js'
import { dropTablePrefix, postgresAvailable, randomTablePrefix, testPool } from '../../test-utils/postgres.js'
import { deletePrefix, randomPrefix, REDIS_URL, redisAvailable } from '../../test-utils/redis.js'
import { eventsCrashFactory, openLocked, removeDirs } from './events-kit.js'
import { fileCrashFactory } from './file-crash-factory.js'

const SEALED: CrashMatrixSelection = { encryption: { keys: { k1: randomBytes(32) }, current: 'k1' }, policies: ['skip'], random: 1 }
const [redisUp, postgresUp] = await Promise.all([redisAvailable('the encrypted crash matrix on the machine Redis'), postgresAvailable()])

afterAll(removeDirs)

describeCrashMatrix('MemoryDurability, encrypted', { create: async () => new MemoryDurability() }, SEALED)

describeCrashMatrix(
  'FileDurability (appendLog mode, killed), encrypted',
  fileCrashFactory({ appendLog: { compactEvery: 16, fsync: false } }, 'kill').factory,
  SEALED,
)

describeCrashMatrix('eventsDurability over a locked FileEventJournal, encrypted', eventsCrashFactory(openLocked), SEALED)

const sqliteDirs = new Map<object, string>()
describeCrashMatrix(
  'SQLiteDurability, encrypted',
  {
    async create() {
      const dir = mkdtempSync(join(tmpdir(), 'botmesh-sealed-crash-'))
      const backend = new SQLiteDurability({ file: join(dir, 'bot.db') })
      sqliteDirs.set(backend, dir)
      return backend
    },
    async restart(crashed) {
      const dir = sqliteDirs.get(crashed)!
      const backend = new SQLiteDurability({ file: join(dir, 'bot.db') })
      sqliteDirs.set(backend, dir)
      return backend
    },
    async cleanup(backend) {
      const dir = sqliteDirs.get(backend)
      if (dir) rmSync(dir, { recursive: true, force: true })
    },
  },
  SEALED,
)

describe.runIf(redisUp)('RedisDurability, encrypted', () => {
  let admin: Redis | undefined
  afterAll(async () => {
    await admin?.quit()
  })
  describeCrashMatrix(
    'RedisDurability, encrypted',
    {
      create: async () => new RedisDurability({ url: REDIS_URL, prefix: randomPrefix() }),
      // The crashed generation never stops its bot, so its connection is closed here.
      restart: async (crashed) => {
        const { prefix, kv } = crashed as RedisDurability
        await kv.stop()
        return new RedisDurability({ url: REDIS_URL, prefix })
      },
      cleanup: async (backend) => {
        await (backend as RedisDurability).kv.stop()
        await deletePrefix((admin ??= new Redis(REDIS_URL)), (backend as RedisDurability).prefix)
      },
    },
    SEALED,
  )
})

describe.runIf(postgresUp)('PostgresDurability, encrypted', () => {
  const pool = testPool({ max: 4 })
  const tablePrefix = randomTablePrefix()
  afterAll(async () => {
    await pool.end()
    await dropTablePrefix(tablePrefix)
  }, 60_000)
  describeCrashMatrix(
    'PostgresDurability, encrypted',
    {
      create: async () => new PostgresDurability({ pool, tablePrefix }),
      restart: async () => new PostgresDurability({ pool, tablePrefix }),
      cleanup: async () => {
        await pool.query(`DELETE FROM ${durableTables(tablePrefix).durable}`)
      },
    },
    SEALED,
  )
})
