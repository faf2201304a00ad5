/** The crash matrix's 'resend' half on PostgresDurability (postgres-crash-matrix.ts); the 'skip' half is in postgres-crash.test.ts. */
import { describe } from 'vitest'
import { postgresAvailable } from '../../test-utils/postgres.js'
import { describePostgresCrashMatrix } from './postgres-crash-matrix.js'

const available = await postgresAvailable()

describe.runIf(available)('PostgresDurability under crashes', () => {
  describePostgresCrashMatrix('resend')
})
