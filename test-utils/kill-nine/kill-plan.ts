/**
 * Where the kill -9 test's SIGKILLs land, drawn from the seed. Each kill names a phase of a message's
 * path, as the channel sees it from outside, and fires at a drawn occurrence of it once the channel
 * holds enough replies, so the kills spread over the stream and each run makes some progress:
 *
 * - `admission`: an event just reached the bot's receive, not yet acknowledged;
 * - `handler`: a handler started, nothing sent yet;
 * - `calling`: the engine journaled a send and is about to call the provider, which has not seen it;
 * - `send`: the channel received the provider call and has not answered it;
 * - `after`: the channel answered the call; the kill follows a drawn 0–3 ms later, while the outcome
 *   is being journaled or just after.
 */
import { pick, seededRandom } from '../../src/core/testing/crash-matrix/random.js'

export const KILL_PHASES = ['admission', 'handler', 'calling', 'send', 'after'] as const
export type KillPhase = (typeof KILL_PHASES)[number]

/** What the summary calls each phase. */
export const PHASE_NAMES: Record<KillPhase, string> = {
  admission: 'admission',
  handler: 'handler',
  calling: 'journaled, before the provider call',
  send: 'in the provider call',
  after: 'after the provider call',
}

export interface PlannedKill {
  phase: KillPhase
  /** Armed once the channel holds this many distinct replies. */
  afterReplies: number
  /** Fires at this occurrence of the phase once armed (1 = the first). */
  occurrence: number
  /** `after` only: how long after the channel's answer. */
  delayMs: number
}

/** The kills stop by this share of the replies, leaving work in every phase for the last one. */
const LAST_KILL_AT_SHARE = 0.8

/** `kills` kills, as many in each phase (give or take one), shuffled. */
export function killPlan(seed: number, kills: number, messages: number): PlannedKill[] {
  const random = seededRandom(seed)
  const phases = Array.from({ length: kills }, (_, k) => KILL_PHASES[k % KILL_PHASES.length]!)
  for (let n = phases.length - 1; n > 0; n--) {
    const other = pick(random, 0, n)
    ;[phases[n], phases[other]] = [phases[other]!, phases[n]!]
  }
  return phases.map((phase, k) => ({
    phase,
    afterReplies: Math.floor(((k + 1) * messages * LAST_KILL_AT_SHARE) / kills),
    occurrence: pick(random, 1, 3),
    delayMs: pick(random, 0, 3),
  }))
}
