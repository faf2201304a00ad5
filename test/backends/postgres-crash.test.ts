/**
 * The crash matrix and the real-process SIGKILL test on PostgresDurability: every case on a table
 * prefix of its own; a "restart" is a new backend with its own pool on the same tables, as the next
 * process would open. The dead generation's pool is ended (its connections die with the process).
 */
import { fileURLToPath } from 'node:url'
import { afterAll, describe } from 'vitest'
import { PostgresDurability } from '../../src/backends/postgres/index.js'
import type { DurabilityBackend } from '../../src/core/durability/backend.js'
import { describeCrashMatrix } from '../../test-utils/durability-crash.js'
import { describeProcessCrash } from '../../test-utils/process-crash.js'
import { dropTablePrefix, PG_URL, postgresAvailable, randomTablePrefix } from '../../test-utils/postgres.js'

const available = await postgresAvailable()

/** The table prefix each backend of a case works on. */
const prefixes = new Map<DurabilityBackend, string>()
const open = (tablePrefix: string) => {
  const backend = new PostgresDurability({ connectionString: PG_URL, tablePrefix, poolMax: 4, logger: { error: () => {} } })
  prefixes.set(backend, tablePrefix)
  return backend
}

describe.runIf(available)('PostgresDurability under crashes', () => {
  // Dropping a case's tables costs a few hundred ms of DDL; they are dropped together at the end.
  const used: string[] = []
  afterAll(async () => {
    // A few at a time: each drop opens a connection of its own, and the server is shared.
    for (let n = 0; n < used.length; n += 4) await Promise.all(used.slice(n, n + 4).map((tablePrefix) => dropTablePrefix(tablePrefix)))
  }, 120_000)

  describeCrashMatrix('PostgresDurability', {
    create: async () => open(randomTablePrefix()),
    // The crashed generation never stops its bot (its journal calls hang in crashable()), so its pool is ended here.
    restart: async (crashed) => {
      await (crashed as PostgresDurability).kv.stop()
      return open(prefixes.get(crashed)!)
    },
    cleanup: async (backend) => {
      await (backend as PostgresDurability).kv.stop()
      used.push(prefixes.get(backend)!)
    },
  })

  describeProcessCrash('PostgresDurability', {
    module: fileURLToPath(new URL('../fixtures/process-crash/postgres-backend.ts', import.meta.url)),
    prepare() {
      const tablePrefix = randomTablePrefix()
      return {
        arg: { connectionString: PG_URL, tablePrefix },
        open: async () => open(tablePrefix),
        cleanup: async () => {
          used.push(tablePrefix)
        },
      }
    },
  })
})
