/**
 * The cases of the crash matrix: every crash point, before and after it, under both ambiguity
 * policies, plus a message that crashes the process on every run (crash-loop.ts), and seeded
 * random cases (a quarter of them with that message too). A point that only exists after a crash
 * (settling an abandoned send as unknown) is reached by crashing first where the send is left
 * abandoned.
 */
import type { EngineName } from '../../core/durability/engine-choice.js'
import { STEP_CRASH_POINTS, WRITE_CRASH_POINTS, type CrashPoint } from '../../core/durability/journal/crash-points.js'
import { pick, seededDraw, seededRandom } from './random.js'

/** The share of random cases that deliver the crash-loop chat too. */
const CRASH_LOOP_SHARE = 0.25

/** Where one generation of the bot crashes: before or after a crash point's nth occurrence. */
export interface CrashStep {
  /** The journal write it crashes at. */
  point: CrashPoint
  /** Before the write reaches the backend, or right after it did. */
  when: 'before' | 'after'
  /** Crash at this occurrence of the point. @default 1 */
  nth?: number
}

/** One case of the crash matrix: a workload, an ambiguity policy, and where each generation of the bot crashes. */
export interface CrashCase {
  /** A name that says where it crashes. */
  name: string
  /** The `outbox.onAmbiguous` the bot runs with. */
  policy: 'skip' | 'resend'
  /** One crash per generation of the bot; the generation after the last one runs to the end. */
  crashes: CrashStep[]
  /** Drives timing and redelivery choices; random cases also drew their crash from it. */
  seed: number
  /** The crash the case is about (the last of `crashes`; none for a crash loop alone). */
  target?: CrashStep
  /** A random case: its seed alone stands for it (see randomCase). */
  random?: boolean
  /**
   * The workload's crash-loop chat is delivered too (crash-loop.ts): a message that crashes the
   * process on every run, with two behind it; the case's generations go on until it is dead-lettered.
   */
  crashLoop?: boolean
}

export const POLICIES = ['skip', 'resend'] as const

/**
 * The crash points a case on an engine aims at: the message engine's are the journal's writes
 * (the steps are never called); the steps engine's are its steps first, then the writes it still
 * makes (the instance heartbeat, retention, an enqueued send's path), in one list so that random
 * cases draw from it too.
 */
export function crashPointsOn(engine: EngineName): readonly CrashPoint[] {
  return engine === 'steps' ? [...STEP_CRASH_POINTS, ...WRITE_CRASH_POINTS] : WRITE_CRASH_POINTS
}

/** Crashes that must happen first for a point to be reachable at all under a policy (undefined: unreachable). */
function precursors(point: CrashPoint, policy: 'skip' | 'resend'): CrashStep[] | undefined {
  if (point === 'outbox.markUnknown') return policy === 'skip' ? [{ point: 'outbox.markSent', when: 'before' }] : undefined
  return []
}

/** Every point × before/after × policy that can be reached. */
export function deterministicCases(policies: readonly ('skip' | 'resend')[] = POLICIES, seed = 1): CrashCase[] {
  return deterministicCasesOn('message', policies, seed)
}

/** Every point of an engine (crashPointsOn) × before/after × policy that can be reached. */
export function deterministicCasesOn(engine: EngineName, policies: readonly ('skip' | 'resend')[] = POLICIES, seed = 1): CrashCase[] {
  const cases: CrashCase[] = []
  for (const policy of policies) {
    for (const point of crashPointsOn(engine)) {
      const before = precursors(point, policy)
      if (!before) continue
      for (const when of ['before', 'after'] as const) {
        const target = { point, when }
        cases.push({ name: `${when} ${point} (${policy})`, policy, crashes: [...before, target], seed, target })
      }
    }
    cases.push({ name: `a message that crashes every run, two behind it (${policy})`, policy, crashes: [], seed, crashLoop: true })
  }
  return cases
}

/** `count` random cases; `seed` draws each case's own seed, which alone decides that case (see randomCase). */
export function randomCases(seed: number, count: number, policies: readonly ('skip' | 'resend')[] = POLICIES): CrashCase[] {
  return randomCasesOn('message', seed, count, policies)
}

/** `count` random cases on an engine, drawn among its points (crashPointsOn). */
export function randomCasesOn(
  engine: EngineName,
  seed: number,
  count: number,
  policies: readonly ('skip' | 'resend')[] = POLICIES,
): CrashCase[] {
  const random = seededRandom(seed)
  const cases: CrashCase[] = []
  while (cases.length < count) {
    const found = randomCaseOn(engine, pick(random, 1, 2 ** 31 - 1), policies)
    if (found) cases.push(found)
  }
  return cases
}

/** The case a seed stands for: point, side, occurrence, policy, and (in the runner) timing and redeliveries. */
export function randomCase(caseSeed: number, policies: readonly ('skip' | 'resend')[] = POLICIES): CrashCase | undefined {
  return randomCaseOn('message', caseSeed, policies)
}

/** The case a seed stands for on an engine: its point drawn among the engine's (crashPointsOn). */
export function randomCaseOn(
  engine: EngineName,
  caseSeed: number,
  policies: readonly ('skip' | 'resend')[] = POLICIES,
): CrashCase | undefined {
  const points = crashPointsOn(engine)
  const random = seededRandom(caseSeed)
  const policy = policies[pick(random, 0, policies.length - 1)]!
  const point = points[pick(random, 0, points.length - 1)]!
  const before = precursors(point, policy)
  if (!before) return undefined
  const target: CrashStep = { point, when: random() < 0.5 ? 'before' : 'after', nth: pick(random, 1, 3) }
  // Drawn apart from the sequence above, so the cases of earlier seeds stay what they were.
  const crashLoop = seededDraw(caseSeed, 'crash loop') < CRASH_LOOP_SHARE
  return {
    name: `random seed ${caseSeed}: ${target.when} ${point} #${target.nth} (${policy})${crashLoop ? ' + a crash loop' : ''}`,
    policy,
    crashes: [...before, target],
    seed: caseSeed,
    target,
    random: true,
    ...(crashLoop && { crashLoop }),
  }
}
