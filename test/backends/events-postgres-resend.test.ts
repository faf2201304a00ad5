/** The crash matrix's 'resend' half on eventsDurability with a PostgreSQL outbox (events-postgres-matrix.ts), under a table prefix of its own. */
import { afterAll, describe } from 'vitest'
import { dropTablePrefix, postgresAvailable, randomTablePrefix } from '../../test-utils/postgres.js'
import { removeDirs } from './events-kit.js'
import { describeEventsPostgresMatrix } from './events-postgres-matrix.js'

const available = await postgresAvailable()

describe.runIf(available)('eventsDurability with a PostgreSQL outbox', () => {
  const tablePrefix = randomTablePrefix()
  afterAll(async () => {
    removeDirs()
    await dropTablePrefix(tablePrefix)
  }, 60_000)

  describeEventsPostgresMatrix('resend', tablePrefix)
})
