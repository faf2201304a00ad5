/**
 * Where the kill -9 test's SIGKILLs land, drawn from the seed. Each kill names a phase of a message's
 * path, as the channel sees it from outside, and fires at a drawn occurrence of it in the process it
 * kills (any message's: a new one, a redelivery, a replay after the last kill):
 *
 * - `admission`: an event just reached the bot's receive, not yet acknowledged;
 * - `handler`: a handler started, nothing sent yet;
 * - `before-call`: the engine journaled a send and is about to call the provider, which has not seen it;
 * - `in-call`: the channel received the provider call and has not answered it;
 * - `after-call`: the channel answered the call; the kill follows a drawn 0–3 ms later, while the
 *   outcome is being journaled or just after.
 *
 * Each process meets at least STAGE_MESSAGES_MIN messages it never saw (workload.ts), each of which
 * passes through every phase, so the drawn occurrence always comes.
 */
import { pick, seededRandom } from '../../src/testing/crash-matrix/random.js'
import { STAGE_MESSAGES_MIN } from './workload.js'

export const KILL_PHASES = ['admission', 'handler', 'before-call', 'in-call', 'after-call'] as const
export type KillPhase = (typeof KILL_PHASES)[number]

export interface PlannedKill {
  phase: KillPhase
  /** Fires at this occurrence of the phase in its process (1 = the first). */
  occurrence: number
  /** `after-call` only: how long after the channel's answer. */
  delayMs: number
}

/** `kills` kills, as many in each phase (give or take one), shuffled. */
export function killPlan(seed: number, kills: number): PlannedKill[] {
  const random = seededRandom(seed)
  const phases = Array.from({ length: kills }, (_, k) => KILL_PHASES[k % KILL_PHASES.length]!)
  for (let n = phases.length - 1; n > 0; n--) {
    const other = pick(random, 0, n)
    ;[phases[n], phases[other]] = [phases[other]!, phases[n]!]
  }
  return phases.map((phase) => ({
    phase,
    occurrence: pick(random, 1, STAGE_MESSAGES_MIN),
    delayMs: pick(random, 0, 3),
  }))
}
