/**
 * The crash matrix with `durability.encryption` on, on the servers (Redis, PostgreSQL), as
 * encrypted-crash.test.ts runs it on the in-process backends: each crash point before and after
 * (policy 'skip') plus a seeded random case, every generation sealing its journal under the same
 * key, and each case checking that no record's content reached the server in clear. Real time: a
 * server judges leases on its own clock.
 */
import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import { afterAll, describe } from 'vitest'
import { durableTables, PostgresDurability } from '../../src/backends/postgres/index.js'
import { RedisDurability } from '../../src/backends/redis/index.js'
import { describeCrashMatrix, type CrashMatrixSelection } from '../../test-utils/durability-crash.js'
import { dropTablePrefix, postgresAvailable, randomTablePrefix, testPool } from '../../test-utils/postgres.js'
import { deletePrefix, randomPrefix, REDIS_URL, redisAvailable } from '../../test-utils/redis.js'

const SEALED: CrashMatrixSelection = { encryption: { keys: { k1: randomBytes(32) }, current: 'k1' }, policies: ['skip'], random: 1 }
const [redisUp, postgresUp] = await Promise.all([redisAvailable('the encrypted crash matrix on the machine Redis'), postgresAvailable()])

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
