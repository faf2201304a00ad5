/**
 * The crash matrix and the real-process SIGKILL test on PostgresDurability. A matrix case's "restart"
 * is a new backend object on the same tables, as the next process would open (the dead generation's
 * calls hang in crashable() and never reach the server); each SIGKILL run has tables of its own, and
 * its child processes their own pools.
 */
import { fileURLToPath } from 'node:url'
import { afterAll, describe } from 'vitest'
import { durableTables, PostgresDurability } from '../../src/backends/postgres/index.js'
import { describeCrashMatrix } from '../../test-utils/durability-crash.js'
import { describeProcessCrash } from '../../test-utils/process-crash.js'
import { dropTablePrefix, PG_URL, postgresAvailable, randomTablePrefix, testPool } from '../../test-utils/postgres.js'

const available = await postgresAvailable()

describe.runIf(available)('PostgresDurability under crashes', () => {
  // One table prefix for the matrix (its cases run one after another, each on an emptied table) and one
  // pool for the file: a case then costs no DDL and no new connections. A restart is still a new
  // backend object, as the next process would open; the pool is the test's, so stopping one never ends it.
  const pool = testPool({ max: 4 })
  const tablePrefix = randomTablePrefix()
  const used = [tablePrefix]
  afterAll(async () => {
    await pool.end()
    // A few at a time: each drop opens a connection of its own, and the server is shared.
    for (let n = 0; n < used.length; n += 4) await Promise.all(used.slice(n, n + 4).map((prefix) => dropTablePrefix(prefix)))
  }, 120_000)

  describeCrashMatrix('PostgresDurability', {
    create: async () => new PostgresDurability({ pool, tablePrefix }),
    restart: async () => new PostgresDurability({ pool, tablePrefix }),
    cleanup: async () => {
      await pool.query(`DELETE FROM ${durableTables(tablePrefix).durable}`)
    },
  })

  describeProcessCrash('PostgresDurability', {
    module: fileURLToPath(new URL('../fixtures/process-crash/postgres-backend.ts', import.meta.url)),
    prepare() {
      const prefix = randomTablePrefix()
      used.push(prefix)
      return {
        arg: { connectionString: PG_URL, tablePrefix: prefix },
        open: async () => new PostgresDurability({ pool, tablePrefix: prefix }),
      }
    },
  })
})
