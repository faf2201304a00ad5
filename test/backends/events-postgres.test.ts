/**
 * eventsDurability over a SharedFileEventJournal with the outbox in PostgreSQL (the DurableKv of a
 * PostgresDurability): the conformance suite and the crash matrix. Each case works under a table
 * prefix of its own, dropped at the end.
 */
import { join } from 'node:path'
import { afterAll, describe } from 'vitest'
import { SharedFileEventJournal } from '../../src/backends/events/index.js'
import { eventsDurability, type EventsDurability } from '../../src/backends/events/durability.js'
import { PostgresDurability } from '../../src/backends/postgres/index.js'
import type { PostgresKv } from '../../src/backends/postgres/kv.js'
import { describeConformance } from '../../test-utils/durability-conformance.js'
import { describeCrashMatrix } from '../../test-utils/durability-crash.js'
import { dropTablePrefix, PG_URL, postgresAvailable, randomTablePrefix } from '../../test-utils/postgres.js'
import { eventsCrashFactory, openShared, removeDirs, tempDir } from './events-kit.js'

const available = await postgresAvailable()

describe.runIf(available)('eventsDurability with a PostgreSQL outbox', () => {
  const used: string[] = []
  afterAll(async () => {
    removeDirs()
    for (let n = 0; n < used.length; n += 4) await Promise.all(used.slice(n, n + 4).map((prefix) => dropTablePrefix(prefix)))
  }, 120_000)

  const outboxOn = (tablePrefix: string): PostgresKv => new PostgresDurability({ connectionString: PG_URL, tablePrefix, poolMax: 4, logger: { error: () => {} } }).kv

  describeConformance('eventsDurability over a SharedFileEventJournal, outbox in PostgreSQL', {
    async create() {
      const tablePrefix = randomTablePrefix()
      used.push(tablePrefix)
      const journal = await SharedFileEventJournal.open(join(tempDir(), 'events.json'))
      return eventsDurability({ journal, outbox: outboxOn(tablePrefix) })
    },
    async cleanup(backend) {
      const durability = backend as EventsDurability
      await durability.journalOfEvents.close()
      await durability.outbox.stop()
    },
  })

  describeCrashMatrix(
    'eventsDurability over a SharedFileEventJournal, outbox in PostgreSQL',
    eventsCrashFactory(openShared, {
      create() {
        const tablePrefix = randomTablePrefix()
        used.push(tablePrefix)
        return { kv: outboxOn(tablePrefix), reopen: () => outboxOn(tablePrefix) }
      },
      cleanup: (kv) => kv.stop(),
    }),
  )
})
