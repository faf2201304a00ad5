/**
 * A clock that moves only when a test moves it, for the `durability.clock` option (and a
 * MemoryDurability's `now`): lease expiry, backoff and retention are then judged at the times the
 * test chooses, however slowly a busy host runs the engine's timers.
 */
export class ManualClock {
  #nowMs: number

  /** Starts at `startMs` (default: the local time, so journaled times look like real ones). */
  constructor(startMs: number = Date.now()) {
    this.#nowMs = startMs
  }

  /** The time now (bound, so it can be passed as a `clock` option as it is). */
  readonly now = (): number => this.#nowMs

  /** Moves the clock forward by `ms`. */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`a ManualClock only moves forward; got ${ms} ms`)
    this.#nowMs += ms
  }
}
