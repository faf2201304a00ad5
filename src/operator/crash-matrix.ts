/**
 * `crash-matrix`: the library's crash matrix (src/testing/crash-matrix) against a backend an
 * operator names: every crash point before and after, under the chosen ambiguity policies, plus
 * seeded random cases, each on a fresh throwaway instance. Each case's report carries the command
 * that replays it alone (crash-replay.ts).
 */
import type { EngineName } from '../core/durability/engine-choice.js'
import type { CrashCase, CrashCaseLimits, CrashCaseResult } from '../testing/crash-matrix/index.js'
import { deterministicCasesOn, randomCaseOn, randomCasesOn } from '../testing/crash-matrix/cases.js'
import { runCrashCaseOn } from '../testing/crash-matrix/runner.js'
import type { ThrowawayFactory } from './gateway/open.js'
import { UsageError } from './errors.js'
import { reproducibility, replayCommand, type ReplaySelection, type Reproducibility } from './crash-replay.js'
import { ambiguousWindow, sumWindows, type AmbiguousWindow } from './crash-window.js'

/** Which cases to run. */
export interface CrashSelection {
  policies: ('skip' | 'resend')[]
  /** Seeds the deterministic cases' timing and draws the random cases. */
  seed: number
  /** Random cases to add. */
  random: number
  /** Run only the random case this seed stands for. */
  caseSeed?: number
  /** Only cases whose name contains this. */
  match?: string
  /** Only the case of this exact name. */
  case?: string
  /** The engine the bots run on: its crash points are the cases' (the steps engine's steps among them). @default 'message' */
  engine?: EngineName
}

/** The matrix's outcome. */
export interface CrashMatrixReport {
  backend: string
  instances: string
  /** The engine the cases' bots ran on. */
  engine: EngineName
  seed: number
  cases: number
  /** Whether Ctrl-C stopped the run: the case running then is reported failed, later ones did not run. */
  interrupted: boolean
  passed: number
  failed: number
  crashedAsAimed: number
  /** Every loss and duplicate; `window` splits them into what the policy allows and what fails. */
  totals: { lost: number; duplicated: number; unexpected: number; ambiguous: number }
  window: AmbiguousWindow
  /** Whether the same seed gives this report byte for byte, and what it does not reproduce where not. */
  reproducibility: Reproducibility
  results: CrashCaseReport[]
}

/** A case's result with its losses and duplicates split by the ambiguous window, and the command that replays it alone. */
export type CrashCaseReport = CrashCaseResult & { window: AmbiguousWindow; replay: string }

/** The cases a selection stands for. */
export function crashCases(selection: CrashSelection): CrashCase[] {
  const engine = selection.engine ?? 'message'
  if (selection.caseSeed !== undefined) {
    const found = randomCaseOn(engine, selection.caseSeed, selection.policies)
    if (!found)
      throw new UsageError(
        `--case-seed ${selection.caseSeed} stands for no reachable case under policy ${selection.policies.join(' and ')}`,
      )
    return [found]
  }
  const cases = [
    ...deterministicCasesOn(engine, selection.policies, selection.seed),
    ...randomCasesOn(engine, selection.seed, selection.random, selection.policies),
  ]
  const chosen = cases.filter(
    (testCase) => (!selection.match || testCase.name.includes(selection.match)) && (!selection.case || testCase.name === selection.case),
  )
  if (chosen.length === 0) throw new UsageError(`no crash case matches "${selection.case ?? selection.match}"`)
  return chosen
}

/** How the matrix runs: each case's time limits, progress, Ctrl-C, and how its cases are replayed. */
export interface CrashMatrixOptions extends CrashCaseLimits {
  /** The kind of backend (memory, file, sqlite, redis…): simulated time where its clock is this process's. */
  kind: string
  /** How the command line chose the cases, for each case's replay command. */
  replay: ReplaySelection
  onResult?: (result: CrashCaseResult, index: number, total: number) => void
  /** Cuts off the case running (its throwaway data is still removed) and runs no more. */
  signal?: AbortSignal
  /** The engine the cases' bots run on, whatever BOTMESH_ENGINE says. @default 'message' */
  engine?: EngineName
}

/** Runs the cases one after another, reporting each as it finishes. */
export async function runCrashMatrix(
  label: string,
  factory: ThrowawayFactory,
  cases: readonly CrashCase[],
  seed: number,
  options: CrashMatrixOptions,
): Promise<CrashMatrixReport> {
  const results: CrashCaseReport[] = []
  const { onResult: _onResult, kind, replay, engine = 'message', ...limits } = options
  const reproducible = reproducibility(kind)
  for (const [index, testCase] of cases.entries()) {
    if (options.signal?.aborted) break
    const result = await runCrashCaseOn(engine, factory, testCase, { ...limits, simulatedTime: reproducible.simulatedTime })
    results.push({
      ...result,
      window: ambiguousWindow(result),
      replay: replayCommand(testCase, testCase.random === true, { ...replay, engine }),
    })
    options.onResult?.(result, index, cases.length)
  }
  const total = (key: 'lost' | 'duplicated' | 'unexpected' | 'ambiguous') => results.reduce((sum, result) => sum + result[key], 0)
  const failed = results.filter((result) => !result.ok).length
  return {
    backend: label,
    instances: factory.description,
    engine,
    seed,
    cases: results.length,
    interrupted: options.signal?.aborted ?? false,
    passed: results.length - failed,
    failed,
    crashedAsAimed: results.filter((result) => result.crashed).length,
    totals: { lost: total('lost'), duplicated: total('duplicated'), unexpected: total('unexpected'), ambiguous: total('ambiguous') },
    window: sumWindows(results.map((result) => result.window)),
    reproducibility: reproducible,
    results,
  }
}
