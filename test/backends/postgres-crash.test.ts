/**
 * The crash matrix ('skip' half: the 'resend' half is postgres-crash-resend.test.ts) and the
 * real-process SIGKILL test on PostgresDurability. Each SIGKILL run has tables of its own, and its
 * child processes their own pools.
 */
import { fileURLToPath } from 'node:url'
import { afterAll, describe } from 'vitest'
import { PostgresDurability } from '../../src/backends/postgres/index.js'
import { describeProcessCrash } from '../../test-utils/process-crash.js'
import { dropTablePrefix, PG_URL, postgresAvailable, randomTablePrefix, testPool } from '../../test-utils/postgres.js'
import { describePostgresCrashMatrix } from './postgres-crash-matrix.js'

const available = await postgresAvailable()

describe.runIf(available)('PostgresDurability under crashes', () => {
  describePostgresCrashMatrix('skip')

  const pool = testPool({ max: 4 })
  const used: string[] = []
  afterAll(async () => {
    await pool.end()
    // A few at a time: each drop opens a connection of its own, and the server is shared.
    for (let n = 0; n < used.length; n += 4) await Promise.all(used.slice(n, n + 4).map((prefix) => dropTablePrefix(prefix)))
  }, 120_000)

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
