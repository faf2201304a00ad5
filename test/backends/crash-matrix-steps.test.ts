/**
 * The crash matrix reaches the steps engine (issue 40): a case run on `engine: 'steps'` starts its
 * bots on the steps engine of a memory backend seen through `crashable`, which speaks the steps on,
 * and crashes before and after each step (admit, journal, settle, takeBack). Every case must end
 * with the matrix's own verdict clean: no reply lost, none sent twice outside the ambiguous window,
 * each chat in its order, the journal settled.
 */
import { describe, expect, it } from 'vitest'
import { MemoryDurability } from '../../src/core/index.js'
import { STEP_CRASH_POINTS } from '../../src/core/durability/journal/crash-points.js'
import { deterministicCasesOn, randomCasesOn } from '../../src/testing/crash-matrix/cases.js'
import { runCrashCaseOn } from '../../src/testing/crash-matrix/runner.js'
import type { CrashBackendFactory } from '../../src/testing/crash-matrix/index.js'

const memory: CrashBackendFactory = { create: async () => new MemoryDurability() }

/** The step cases: every step × before/after × both policies. */
const stepCases = deterministicCasesOn('steps').filter((testCase) => STEP_CRASH_POINTS.some((point) => testCase.target?.point === point))

describe('crash matrix on the steps engine (memory)', () => {
  it('aims at every step, before and after, under both policies', () => {
    expect(stepCases.map((testCase) => testCase.name).sort()).toEqual(
      STEP_CRASH_POINTS.flatMap((point) =>
        (['skip', 'resend'] as const).flatMap((policy) => [`after ${point} (${policy})`, `before ${point} (${policy})`]),
      ).sort(),
    )
  })

  it('a crash before or after each step loses no reply, sends none twice outside the ambiguous window, keeps each chat in order', async () => {
    const failures: string[] = []
    for (const testCase of stepCases) {
      const result = await runCrashCaseOn('steps', memory, testCase, { simulatedTime: true })
      // On the steps engine: its steps are reached, the message engine's admission write never is.
      expect(result.reached, testCase.name).toContain('steps.admit')
      expect(result.reached, testCase.name).not.toContain('inbox.admit')
      expect(result.crashed, `${testCase.name} crashed where it aimed`).toBe(true)
      if (!result.ok) failures.push(`${testCase.name}: ${result.problems.join('; ')}`)
    }
    expect(failures).toEqual([])
  }, 60_000)

  it('random cases on the steps engine draw among its steps too, and pass', async () => {
    const cases = randomCasesOn('steps', 40, 6)
    const failures: string[] = []
    for (const testCase of cases) {
      const result = await runCrashCaseOn('steps', memory, testCase, { simulatedTime: true })
      expect(result.reached, testCase.name).not.toContain('inbox.admit')
      if (!result.ok) failures.push(`${testCase.name}: ${result.problems.join('; ')}`)
    }
    expect(failures).toEqual([])
  }, 60_000)
})
