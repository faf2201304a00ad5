import { describe } from 'vitest'
import { PostgresDurability } from '../../src/backends/postgres/index.js'
import { describeConformance } from '../../test-utils/durability-conformance.js'
import { PG_URL, dropTablePrefix, postgresAvailable, randomTablePrefix } from '../../test-utils/postgres.js'

const available = await postgresAvailable()

describe.runIf(available)('PostgreSQL', () => {
  describeConformance('PostgresDurability', {
    create: async () => new PostgresDurability({ connectionString: PG_URL, tablePrefix: randomTablePrefix() }),
    cleanup: async (backend) => dropTablePrefix((backend as PostgresDurability).kv.tables.prefix),
  })
})
