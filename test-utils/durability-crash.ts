/**
 * Runs the library's crash matrix (src/testing/crash-matrix) under vitest: every crash point
 * before and after, under both ambiguity policies, plus seeded random cases, and a check that no
 * crash point goes uncovered. A backend's test file is one call to this.
 *
 * Replay one random case: CRASH_CASE_SEED=<seed> npx vitest run <file>
 * More random cases: CRASH_RANDOM=<n> (default 8), CRASH_SEED=<seed> (default: the day's date).
 */
import { afterAll, describe, expect, it } from 'vitest'
import { WRITE_CRASH_POINTS, type CrashPoint } from '../src/core/durability/journal/crash-points.js'
import type { EncryptionOptions } from '../src/core/durability/config.js'
import {
  CRASH_CASE_LIMITS,
  deterministicCases,
  randomCase,
  randomCases,
  type CrashBackendFactory,
  type CrashCase,
  type CrashCaseResult,
} from '../src/testing/crash-matrix/index.js'
import { runCrashCaseOn } from '../src/testing/crash-matrix/runner.js'

/** Which cases a backend's file runs. */
export interface CrashMatrixSelection {
  /** Random cases to add (CRASH_RANDOM overrides). @default 8 */
  random?: number
  /** The policies of the deterministic cases and the random ones. @default both */
  policies?: readonly ('skip' | 'resend')[]
  /** Every case runs with the journal sealed under these keys (and checks that no content reached the backend in clear). */
  encryption?: EncryptionOptions
  /**
   * Runs every case on simulated time (crash-matrix/simulated-time.ts): leases, heartbeats and
   * backoffs pass as soon as the work has nothing else to do, in the order of their due times, so a
   * case takes a fraction of its real-time length and its outcome does not depend on the machine's
   * load. Only for a backend whose clock is this process's (memory, files, SQLite): a server judges
   * leases on its own clock. @default false
   */
  simulatedTime?: boolean
}

/** The crash points only the 'skip' policy reaches. */
const SKIP_ONLY_POINTS: readonly CrashPoint[] = ['outbox.markUnknown']

export function describeCrashMatrix(backendName: string, factory: CrashBackendFactory, options: CrashMatrixSelection = {}): void {
  describe(`crash matrix: ${backendName}`, () => {
    const results: CrashCaseResult[] = []
    const replay = process.env.CRASH_CASE_SEED ? randomCase(Number(process.env.CRASH_CASE_SEED)) : undefined
    const seed = Number(process.env.CRASH_SEED ?? new Date().toISOString().slice(0, 10).replaceAll('-', ''))
    const random = Number(process.env.CRASH_RANDOM ?? options.random ?? 8)
    const policies = options.policies ?? ['skip', 'resend']
    const cases: CrashCase[] = replay ? [replay] : [...deterministicCases(policies), ...randomCases(seed, random, policies)]
    // The runner ends a hung case itself (a failed verdict with its seed); vitest's limit only backs it up.
    const testTimeoutMs = CRASH_CASE_LIMITS.caseTimeoutMs + CRASH_CASE_LIMITS.cleanupTimeoutMs + 10_000

    for (const testCase of cases) {
      it(
        testCase.name,
        async () => {
          // On the message engine whatever BOTMESH_ENGINE says: its crash points are the journal's writes.
          const result = await runCrashCaseOn('message', factory, testCase, {
            ...(options.encryption ? { encryption: options.encryption } : {}),
            simulatedTime: options.simulatedTime ?? false,
          })
          results.push(result)
          const replayHint = `replay: CRASH_CASE_SEED=${testCase.seed} npx vitest run (or: botmesh crash-matrix --backend <x> --case-seed ${testCase.seed})`
          expect(result.problems, `${testCase.name}\n${JSON.stringify(result)}\n${replayHint}`).toEqual([])
        },
        testTimeoutMs,
      )
    }

    if (!replay) {
      // A file that runs one policy's half of the matrix covers what that policy can reach: an
      // ambiguous send is marked unknown under 'skip' only ('resend' sends it again). Its cases run
      // on the message engine, whose crash points are the journal's writes (the steps engine's are
      // covered by crash-matrix-steps.test.ts).
      const reachable = WRITE_CRASH_POINTS.filter((point) => policies.includes('skip') || !SKIP_ONLY_POINTS.includes(point))
      it('covers every crash point: each one is reached by some case', () => {
        const reached = new Set(
          results.flatMap((r) => (r.crashed ? [] : r.reached)).concat(results.filter((r) => r.crashed).flatMap((r) => r.reached)),
        )
        const missing = reachable.filter((point) => !reached.has(point))
        expect(missing, 'crash points no case reached').toEqual([])
        const crashedAt = new Set(
          results.filter((r) => r.crashed).map((r) => r.name.replace(/^(before|after) /, '').replace(/ \((skip|resend)\)$/, '')),
        )
        const neverCrashed = reachable.filter((point) => !crashedAt.has(point))
        expect(neverCrashed, 'crash points where no case crashed').toEqual([])
      })
    }

    afterAll(() => {
      if (results.length === 0) return
      const sum = (key: 'lost' | 'duplicated' | 'unexpected' | 'ambiguous') => results.reduce((n, r) => n + r[key], 0)
      console.log(
        `crash matrix ${backendName}: ${results.length} cases, ${results.filter((r) => r.crashed).length} crashed as aimed, ` +
          `lost ${sum('lost')}, duplicated ${sum('duplicated')}, unexpected ${sum('unexpected')}, ambiguous ${sum('ambiguous')}, failed ${results.filter((r) => !r.ok).length}`,
      )
    })
  })
}
