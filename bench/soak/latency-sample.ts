/**
 * Latencies of a long run, kept in bounded memory: every value while there are at most
 * `capacity`, then a uniform random sample of them (reservoir sampling), so a soak's percentiles
 * cost the same memory at 10 or 10,000 messages a second.
 */
import { percentile } from '../../src/cli/services/closed-loop.js'

/** Latencies one sample keeps before it starts replacing them at random. @default 100000 */
export const LATENCY_SAMPLE_MAX = 100_000

export class LatencySample {
  readonly #kept: number[] = []
  #seen = 0

  constructor(private readonly capacity: number = LATENCY_SAMPLE_MAX) {}

  /** How many latencies were added, kept or not. */
  get count(): number {
    return this.#seen
  }

  add(ms: number): void {
    this.#seen++
    if (this.#kept.length < this.capacity) {
      this.#kept.push(ms)
      return
    }
    // Each of the values seen so far stays kept with the same chance: capacity ÷ seen.
    const slot = Math.floor(Math.random() * this.#seen)
    if (slot < this.capacity) this.#kept[slot] = ms
  }

  /** The latency at each `fraction` (0..1) of the kept values; 0 when none was added. */
  percentiles(fractions: readonly number[]): number[] {
    const sorted = [...this.#kept].sort((a, b) => a - b)
    return fractions.map((fraction) => percentile(sorted, fraction))
  }
}
