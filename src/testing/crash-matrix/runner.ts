/**
 * Runs crash cases. Each generation of the bot runs on `crashable(backend)` armed with its crash;
 * when it crashes it is abandoned (as a dead process would be), and the next generation starts on
 * the same backend and store with the same instanceId, gets every message the channel would
 * redeliver (those never acknowledged, plus a seeded few that were), and runs until idle.
 *
 * Every case ends with a verdict: it is bounded by `caseTimeoutMs` (a hang is a failed case with
 * its seed) and by the caller's abort signal, and its throwaway data is removed on every path.
 */
import type { EncryptionOptions } from '../../core/durability/config.js'
import { STEP_CRASH_POINTS, type CrashPoint } from '../../core/durability/journal/crash-points.js'
import type { EngineName } from '../../core/durability/engine-choice.js'
import type { CrashCase } from './cases.js'
import { CaseRun, type CrashBackendFactory } from './case-run.js'
import { tally, violations, type Tally } from './checker.js'
import { within } from './deadline.js'
import { CrashCaseCleanupError, CrashCaseInterruptedError, CrashCaseTimeoutError } from './errors.js'
import { CRASH_CASE_LIMITS, type CrashCaseLimits } from './limits.js'
import { SimulatedTime } from './simulated-time.js'
import { crashLoopSends } from './crash-loop.js'
import { expectedSends } from './workload.js'

export type { CrashBackendFactory } from './case-run.js'

/** What one crash-matrix case found: its tally, the crash points reached and any broken promise in `problems`. */
export interface CrashCaseResult extends Tally {
  /** The case's name. */
  name: string
  /** The `outbox.onAmbiguous` it ran with. */
  policy: 'skip' | 'resend'
  /** The seed of its workload and random crashes. */
  seed: number
  /** Whether the case's own crash happened (a random occurrence may not exist). */
  crashed: boolean
  /** Every crash point reached, for coverage, in CRASH_POINTS' order. */
  reached: CrashPoint[]
  /** How many times the bot was started (one more than the crashes). */
  generations: number
  /** Whether no promise of the contract was broken. */
  ok: boolean
  /** Each broken promise, in a sentence. */
  problems: string[]
}

/** How a case runs: its time limits, and a signal that cuts it off (its data is still removed). */
export interface CrashCaseOptions extends CrashCaseLimits {
  /** Stops the case (interrupted); its data is still removed. */
  signal?: AbortSignal
  /** Every generation runs with its journal sealed under these keys. */
  encryption?: EncryptionOptions
  /**
   * Runs the case on simulated time (simulated-time.ts), so the same seed gives the same result.
   * Only for a backend whose clock is this process's (memory, file, SQLite): a server's clock
   * (Redis, PostgreSQL) judges leases on real time whatever this process does.
   * @default false
   */
  simulatedTime?: boolean
}

/** Runs one case to a verdict. */
export function runCrashCase(factory: CrashBackendFactory, testCase: CrashCase, options: CrashCaseOptions = {}): Promise<CrashCaseResult> {
  return runCrashCaseOn(undefined, factory, testCase, options)
}

/**
 * Runs one case to a verdict on the engine it names: its bots run on `engine` (the steps engine
 * where the backend speaks the steps), whatever BOTMESH_ENGINE says; undefined: as the environment chooses.
 */
export async function runCrashCaseOn(
  engine: EngineName | undefined,
  factory: CrashBackendFactory,
  testCase: CrashCase,
  options: CrashCaseOptions = {},
): Promise<CrashCaseResult> {
  const caseTimeoutMs = options.caseTimeoutMs ?? CRASH_CASE_LIMITS.caseTimeoutMs
  const time = options.simulatedTime ? new SimulatedTime() : undefined
  const onTime = <T>(work: () => Promise<T>) => (time ? time.enter(work) : work())
  const run = new CaseRun(
    factory,
    testCase,
    options.settleTimeoutMs ?? CRASH_CASE_LIMITS.settleTimeoutMs,
    options.encryption,
    time?.now,
    engine,
  )
  const problems: string[] = []
  let finished = false
  time?.start()
  try {
    // The deadline is set here, on real time: a case that hangs waits on nothing simulated time could fire.
    const outcome = await within(
      onTime(() => run.execute()),
      caseTimeoutMs,
      options.signal,
    )
    if (outcome.done) {
      finished = true
      problems.push(...outcome.value)
    } else {
      run.cutOff()
      const error =
        outcome.reason === 'timeout'
          ? new CrashCaseTimeoutError(testCase.seed, caseTimeoutMs, run.step)
          : new CrashCaseInterruptedError(testCase.seed, run.step)
      problems.push(error.message)
    }
  } catch (error) {
    // A generation that threw may still have a bot running: it dies as at a crash before the cleanup.
    run.cutOff()
    problems.push(`the case (seed ${testCase.seed}) failed at ${run.step}: ${error instanceof Error ? error.message : String(error)}`)
  } finally {
    const left = await removeData(
      () => onTime(() => run.cleanup()),
      testCase.seed,
      options.cleanupTimeoutMs ?? CRASH_CASE_LIMITS.cleanupTimeoutMs,
    )
    time?.stop()
    if (left) problems.push(left.message)
  }
  const counts = tally([...expectedSends(), ...(testCase.crashLoop ? crashLoopSends() : [])], run.accepted(), run.ambiguous)
  // A case cut off before its end lost nothing yet: only a case that ran to the end gets the oracle's verdict.
  if (finished) problems.push(...violations(counts, testCase.policy))
  const reached = run.reached()
  if (finished) problems.push(...missedSteps(engine, reached))
  return {
    name: testCase.name,
    policy: testCase.policy,
    seed: testCase.seed,
    crashed: run.crashedTarget,
    reached,
    generations: run.generations,
    ...counts,
    ok: problems.length === 0,
    problems,
  }
}

/**
 * The engine is chosen where it can run, else the bot falls back: a case aimed at the steps must not
 * pass on the other engine.
 */
function missedSteps(engine: EngineName | undefined, reached: readonly string[]): string[] {
  if (engine !== 'steps' || reached.some((point) => (STEP_CRASH_POINTS as readonly string[]).includes(point))) return []
  return [
    'the case names the steps engine, but its bots reached no step: they ran on the message engine (the backend does not speak the steps)',
  ]
}

/**
 * Removes the case's throwaway data, bounded by `limitMs` but not by the abort signal: an
 * interrupted case still removes its data (a second Ctrl-C quits at once). Resolves to what went wrong.
 */
async function removeData(cleanup: () => Promise<void>, seed: number, limitMs: number): Promise<CrashCaseCleanupError | undefined> {
  try {
    const cleaned = await within(cleanup(), limitMs)
    return cleaned.done ? undefined : new CrashCaseCleanupError(seed, `the cleanup did not finish within ${limitMs} ms`)
  } catch (error) {
    return new CrashCaseCleanupError(seed, error instanceof Error ? error.message : String(error), error)
  }
}

export { journalProblems, WORKLOAD_SCOPE } from './journal-check.js'
