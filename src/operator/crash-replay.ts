/**
 * What a crash-matrix report says about replaying its cases: the one command that runs a case
 * again alone, and which parts of a run the same seed does not reproduce on a backend.
 */
import type { EngineName } from '../core/durability/engine-choice.js'
import type { CrashCase } from '../testing/crash-matrix/index.js'

/** The backends a case runs on simulated time for: their clock is this process's. */
const SIMULATED = new Set(['memory', 'file', 'sqlite'])

/** Whether a run of the crash matrix on this kind of backend is reproduced, byte for byte, by its seed. */
export interface Reproducibility {
  /** Cases ran on simulated time: the same seed gives the same --json report, byte for byte. */
  simulatedTime: boolean
  /** What the seed does not decide on this backend, a sentence each (empty on simulated time). */
  notReproducible: string[]
}

export function reproducibility(kind: string): Reproducibility {
  if (SIMULATED.has(kind)) return { simulatedTime: true, notReproducible: [] }
  const server = kind === 'redis' || kind === 'postgres'
  return {
    simulatedTime: false,
    notReproducible: [
      server
        ? "lease expiry, heartbeats, retry backoff and retention are judged on the server's clock, in real time: which of them a crash catches, and so a case's delivered, lost, duplicated and ambiguous counts, can differ between two runs of one seed"
        : 'the case runs on real time: which timer fires first (a heartbeat, a poll, a backoff) can differ between two runs of one seed',
      ...(server ? ['the order in which the server answers calls made at the same time (a background sweep beside a message)'] : []),
      'what stays reproducible: the cases, their crash points, the arrival order of the messages and the redeliveries',
    ],
  }
}

/** How the run chose its cases, as its command line said it. */
export interface ReplaySelection {
  /** The --backend given (its redacted form). */
  backend: string
  /** The --policy given: a random case is drawn among these. */
  policy: 'skip' | 'resend' | 'both'
  /** The --engine given (the cases and their seeds are the engine's). @default 'message' */
  engine?: EngineName
}

/**
 * The command that runs `testCase` again, alone: a random case by its own seed (--case-seed, drawn
 * among the same policies), any other by the run's seed and its exact name (--case).
 */
export function replayCommand(testCase: Pick<CrashCase, 'name' | 'seed' | 'policy'>, random: boolean, selection: ReplaySelection): string {
  const engine = selection.engine === 'steps' ? ' --engine steps' : ''
  const backend = `botmesh crash-matrix --backend ${quote(selection.backend)}${engine}`
  if (random) return `${backend} --policy ${selection.policy} --case-seed ${testCase.seed}`
  return `${backend} --policy ${testCase.policy} --seed ${testCase.seed} --case ${quote(testCase.name)}`
}

/** Quotes for a POSIX shell when needed. */
function quote(text: string): string {
  return /^[\w./:@-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`
}
