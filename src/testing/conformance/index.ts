/** The conformance suite: named cases every durability backend must pass. */
import { BACKEND_LIFECYCLE_CASES } from './backend-lifecycle-cases.js'
import { ENGINE_CASES } from './engine-cases.js'
import { JOURNAL_INDEX_CASES } from './journal-index-cases.js'
import { JOURNAL_WRITE_CASES } from './journal-write-cases.js'
import { ORDER_CASES } from './order-cases.js'
import { RETENTION_CASES } from './retention-cases.js'
import { SEARCH_CASES } from './search-cases.js'
import type { ConformanceCase } from './case.js'

export type { BackendFactory, ConformanceCase, ConformanceContext } from './case.js'
export { runCase, runCases, type CaseResult } from './runner.js'

/** Every conformance case, in the order they run: the journal's and the backend's own first, then the engine's on top of them. */
export const CONFORMANCE_CASES: readonly ConformanceCase[] = [
  ...JOURNAL_WRITE_CASES,
  ...JOURNAL_INDEX_CASES,
  ...SEARCH_CASES,
  ...BACKEND_LIFECYCLE_CASES,
  ...ENGINE_CASES,
  ...ORDER_CASES,
  ...RETENTION_CASES,
]
