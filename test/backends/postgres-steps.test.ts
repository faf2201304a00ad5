/**
 * The steps' conformance cases on PostgreSQL (src/backends/postgres/steps/): on the machine's
 * server, each case in a fresh scope of one journal. The journal the cases read back through is
 * `PostgresDurability`'s own, so the operator verbs read what the steps wrote.
 */
import { afterAll, beforeAll, describe } from 'vitest'
import { PostgresDurability } from '../../src/backends/postgres/index.js'
import { describeStepsConformance } from '../../test-utils/steps-conformance.js'
import { dropTablePrefix, postgresAvailable, randomTablePrefix, testPool } from '../../test-utils/postgres.js'

const available = await postgresAvailable()

describe.runIf(available)('the steps on the machine PostgreSQL', () => {
  const tablePrefix = randomTablePrefix()
  const pool = testPool({ max: 4 })
  const durability = new PostgresDurability({ pool, tablePrefix })
  let scopes = 0

  beforeAll(() => durability.start())
  afterAll(async () => {
    await durability.stop()
    await pool.end()
    await dropTablePrefix(tablePrefix)
  })

  describeStepsConformance('PostgreSQL', () => {
    const scope = `steps-${++scopes}`
    return { steps: durability.steps(scope), journal: durability.journal(scope), reopen: () => durability.steps(scope) }
  })
})
