/** The conformance suite: named cases every durability backend must pass. */
import { ENGINE_CASES } from './engine-cases.js'
import { JOURNAL_CASES } from './journal-cases.js'
import type { ConformanceCase } from './case.js'

export type { BackendFactory, ConformanceCase, ConformanceContext } from './case.js'
export { runCase, runCases, type CaseResult } from './runner.js'

/** Every conformance case, in the order they run. */
export const CONFORMANCE_CASES: readonly ConformanceCase[] = [...JOURNAL_CASES, ...ENGINE_CASES]
