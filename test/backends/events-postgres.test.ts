/**
 * eventsDurability over a SharedFileEventJournal with the outbox in PostgreSQL (the DurableKv of a
 * PostgresDurability): the conformance suite and the crash matrix. The file runs under one table
 * prefix of its own: conformance cases keep apart by scope, and each crash case starts from empty
 * tables (truncated after the case before). The tables are dropped at the end.
 */
import { join } from 'node:path'
import { afterAll, describe } from 'vitest'
import { SharedFileEventJournal } from '../../src/events/index.js'
import { eventsDurability, type EventsDurability } from '../../src/backends/events/durability.js'
import { PostgresDurability } from '../../src/backends/postgres/index.js'
import { durableTables } from '../../src/backends/postgres/tables.js'
import { describeConformance } from '../../test-utils/durability-conformance.js'
import { describeCrashMatrix } from '../../test-utils/durability-crash.js'
import { adminQuery, dropTablePrefix, PG_URL, postgresAvailable, randomTablePrefix } from '../../test-utils/postgres.js'
import { eventsCrashFactory, openShared, removeDirs, tempDir } from './events-kit.js'

const available = await postgresAvailable()

describe.runIf(available)('eventsDurability with a PostgreSQL outbox', () => {
  const tablePrefix = randomTablePrefix()
  afterAll(async () => {
    removeDirs()
    await dropTablePrefix(tablePrefix)
  }, 60_000)

  const outbox = () => new PostgresDurability({ connectionString: PG_URL, tablePrefix, poolMax: 4, logger: { error: () => {} } }).kv

  describeConformance('eventsDurability over a SharedFileEventJournal, outbox in PostgreSQL', {
    create: async () => eventsDurability({ journal: await SharedFileEventJournal.open(join(tempDir(), 'events.json')), outbox: outbox() }),
    async cleanup(backend) {
      const durability = backend as EventsDurability
      await durability.journalOfEvents.close()
      await durability.outbox.stop()
    },
  })

  describeCrashMatrix(
    'eventsDurability over a SharedFileEventJournal, outbox in PostgreSQL',
    eventsCrashFactory(openShared, {
      create: () => ({ kv: outbox(), reopen: outbox }),
      async cleanup(kv) {
        await kv.stop()
        const tables = durableTables(tablePrefix)
        await adminQuery(`TRUNCATE ${tables.durable}`)
      },
    }),
  )
})
