/**
 * eventsDurability over a SharedFileEventJournal with the outbox in PostgreSQL (the DurableKv of a
 * PostgresDurability): the conformance suite and the crash matrix's 'skip' half (the 'resend' half
 * is events-postgres-resend.test.ts). The file runs under one table prefix of its own: conformance
 * cases keep apart by scope, and each crash case starts from empty tables. The tables are dropped at the end.
 */
import { join } from 'node:path'
import { afterAll, describe } from 'vitest'
import { SharedFileEventJournal } from '../../src/events/index.js'
import { eventsDurability, type EventsDurability } from '../../src/backends/events/durability.js'
import { describeConformance } from '../../test-utils/durability-conformance.js'
import { dropTablePrefix, postgresAvailable, randomTablePrefix } from '../../test-utils/postgres.js'
import { removeDirs, tempDir } from './events-kit.js'
import { describeEventsPostgresMatrix, postgresOutbox } from './events-postgres-matrix.js'

const available = await postgresAvailable()

describe.runIf(available)('eventsDurability with a PostgreSQL outbox', () => {
  const tablePrefix = randomTablePrefix()
  afterAll(async () => {
    removeDirs()
    await dropTablePrefix(tablePrefix)
  }, 60_000)

  describeConformance('eventsDurability over a SharedFileEventJournal, outbox in PostgreSQL', {
    create: async () =>
      eventsDurability({ journal: await SharedFileEventJournal.open(join(tempDir(), 'events.json')), outbox: postgresOutbox(tablePrefix) }),
    async cleanup(backend) {
      const durability = backend as EventsDurability
      await durability.journalOfEvents.close()
      await durability.outbox.stop()
    },
  })

  describeEventsPostgresMatrix('skip', tablePrefix)
})
