/**
 * The crash matrix on PostgresDurability for one policy. postgres-crash.test.ts runs the 'skip'
 * half beside the SIGKILL test and postgres-crash-resend.test.ts the 'resend' half: on a server's
 * clock each case takes real seconds, so the halves run on two forks at once. Each half has 4 of
 * the 8 random cases. A matrix case's "restart" is a new backend object on the same tables, as the
 * next process would open (the dead generation's calls hang in crashable() and never reach the server).
 */
import { afterAll } from 'vitest'
import { durableTables, PostgresDurability } from '../../src/backends/postgres/index.js'
import { describeCrashMatrix } from '../../test-utils/durability-crash.js'
import { dropTablePrefix, randomTablePrefix, testPool } from '../../test-utils/postgres.js'

/** Inside a describe: the matrix under `policy`, on a pool and a table prefix of its own. */
export function describePostgresCrashMatrix(policy: 'skip' | 'resend'): void {
  // One table prefix for the matrix (its cases run one after another, each on an emptied table) and one
  // pool: a case then costs no DDL and no new connections. A restart is still a new backend object, as
  // the next process would open; the pool is the test's, so stopping one never ends it.
  const pool = testPool({ max: 4 })
  const tablePrefix = randomTablePrefix()
  afterAll(async () => {
    await pool.end()
    await dropTablePrefix(tablePrefix)
  }, 120_000)

  describeCrashMatrix(
    'PostgresDurability',
    {
      create: async () => new PostgresDurability({ pool, tablePrefix }),
      restart: async () => new PostgresDurability({ pool, tablePrefix }),
      cleanup: async () => {
        await pool.query(`DELETE FROM ${durableTables(tablePrefix).durable}`)
      },
    },
    { policies: [policy], random: 4 },
  )
}
