/**
 * The crash matrix on eventsDurability over a SharedFileEventJournal with the outbox in PostgreSQL,
 * for one policy. events-postgres.test.ts runs the 'skip' half beside the conformance suite and
 * events-postgres-resend.test.ts the 'resend' half: on the server's clock each case takes real
 * seconds, so the halves run on two forks at once. Each half has 4 of the 8 random cases; each case
 * starts from empty tables (truncated after the case before).
 */
import { PostgresDurability } from '../../src/backends/postgres/index.js'
import { durableTables } from '../../src/backends/postgres/tables.js'
import { describeCrashMatrix } from '../../test-utils/durability-crash.js'
import { adminQuery, PG_URL } from '../../test-utils/postgres.js'
import { eventsCrashFactory, openShared } from './events-kit.js'

/** A PostgreSQL outbox under `tablePrefix` (the DurableKv of a PostgresDurability). */
export const postgresOutbox = (tablePrefix: string) =>
  new PostgresDurability({ connectionString: PG_URL, tablePrefix, poolMax: 4, logger: { error: () => {} } }).kv

/** Inside a describe that drops `tablePrefix` afterwards: the matrix under `policy`. */
export function describeEventsPostgresMatrix(policy: 'skip' | 'resend', tablePrefix: string): void {
  describeCrashMatrix(
    'eventsDurability over a SharedFileEventJournal, outbox in PostgreSQL',
    eventsCrashFactory(openShared, {
      create: () => ({ kv: postgresOutbox(tablePrefix), reopen: () => postgresOutbox(tablePrefix) }),
      async cleanup(kv) {
        await kv.stop()
        const tables = durableTables(tablePrefix)
        await adminQuery(`TRUNCATE ${tables.durable}`)
      },
    }),
    { policies: [policy], random: 4 },
  )
}
