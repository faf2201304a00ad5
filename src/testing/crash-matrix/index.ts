/** The crash matrix: every crash point × before/after × both ambiguity policies, plus seeded random cases. */
export { deterministicCases, randomCases, randomCase, POLICIES, type CrashCase, type CrashStep } from './cases.js'
export { runCrashCase, type CrashBackendFactory, type CrashCaseOptions, type CrashCaseResult } from './runner.js'
export { CRASH_CASE_LIMITS, type CrashCaseLimits } from './limits.js'
export { CrashCaseCleanupError, CrashCaseInterruptedError, CrashCaseTimeoutError } from './errors.js'
export { tally, violations, type Miss, type Tally } from './checker.js'
export { expectedSends, workloadMessages, type ExpectedSend } from './workload.js'
