/** The crash matrix: every crash point × before/after × both ambiguity policies, plus seeded random cases. */
export { deterministicCases, randomCases, randomCase, POLICIES, type CrashCase, type CrashStep } from './cases.js'
export { runCrashCase, type CrashBackendFactory, type CrashCaseResult } from './runner.js'
export { tally, violations, type Tally } from './checker.js'
export { expectedSends, workloadMessages } from './workload.js'
