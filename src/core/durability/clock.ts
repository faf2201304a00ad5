/**
 * The engine's clock: the local clock corrected to the backend's (Redis TIME, PostgreSQL
 * clock_timestamp()), so lease expiry is judged by one clock for every replica and a replica with a
 * skewed clock neither steals a live lease nor keeps a dead one.
 */
import type { DurabilityBackend } from './backend.js'

export class BackendClock {
  #offsetMs = 0

  constructor(
    private readonly backend: DurabilityBackend,
    private readonly local: () => number,
  ) {}

  /**
   * Now, on the backend's clock (estimated without a round trip), in whole milliseconds: the
   * midpoint offset is often half a millisecond, and every time written to a record is this one.
   */
  now(): number {
    return Math.round(this.local() + this.#offsetMs)
  }

  /** Measures the offset to the backend's clock (one round trip), taking the midpoint of the call. */
  async sync(): Promise<void> {
    const before = this.local()
    const remote = await this.backend.now()
    const after = this.local()
    this.#offsetMs = remote - (before + after) / 2
  }
}
