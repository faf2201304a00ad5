/**
 * The engine's clock: the local clock corrected to the backend's (Redis TIME, PostgreSQL
 * clock_timestamp()), so lease expiry is judged by one clock for every replica and a replica with a
 * skewed clock neither steals a live lease nor keeps a dead one.
 */
import type { DurabilityBackend } from '../journal/backend.js'
import { LIMITS } from '../limits.js'

/** The local time since the epoch, on the monotonic clock: it never steps when the wall clock does. */
const monotonicNow = (): number => performance.timeOrigin + performance.now()

export class BackendClock {
  #offsetMs = 0
  /** The latest time given out: a new sync's estimate may fall a few ms behind it. */
  #lastMs = Number.NEGATIVE_INFINITY
  readonly #local: () => number

  constructor(
    private readonly backend: DurabilityBackend,
    local: () => number,
  ) {
    // The default local clock, Date.now, is the wall clock, which NTP or an operator may step by
    // minutes between two syncs: a lease taken then would end that much early or late. Elapsed time
    // is measured on the monotonic clock instead, and each sync ties it to the backend's again.
    this.#local = local === Date.now ? monotonicNow : local
  }

  /**
   * Now, on the backend's clock (estimated without a round trip), in whole milliseconds: the
   * midpoint offset is often half a millisecond, and every time written to a record is this one.
   */
  now(): number {
    const now = Math.round(this.#local() + this.#offsetMs)
    // Each sync's midpoint estimate jitters with the round trip. Time must not run backwards by that
    // jitter: two messages of a chat admitted a moment apart would get their order swapped in
    // createdAt, and a replay after a crash would run them in that wrong order. A larger step back
    // is a real correction of the clock, and is taken.
    if (now < this.#lastMs && this.#lastMs - now <= LIMITS.clockJitterMaxMs) return this.#lastMs
    this.#lastMs = now
    return now
  }

  /** Measures the offset to the backend's clock (one round trip), taking the midpoint of the call. */
  async sync(): Promise<void> {
    const before = this.#local()
    const remote = await this.backend.now()
    const after = this.#local()
    this.#offsetMs = remote - (before + after) / 2
  }
}
