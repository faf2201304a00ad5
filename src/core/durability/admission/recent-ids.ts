/**
 * Record ids admitted lately by this process, so a redelivery is recognised without a round trip:
 * at most LIMITS.dedupeCacheMax, the oldest forgotten first.
 */
import { LIMITS } from '../limits.js'

export class RecentIds {
  readonly #ids = new Set<string>()
  /** The same ids in the order they were admitted, a ring of LIMITS.dedupeCacheMax slots. */
  readonly #order: (string | undefined)[] = []
  #next = 0

  has(id: string): boolean {
    return this.#ids.has(id)
  }

  forget(id: string): void {
    this.#ids.delete(id)
  }

  remember(id: string): void {
    this.#ids.add(id)
    // The oldest id is found in a ring, not by a Set iterator (two objects per message). An id that
    // was forgotten and admitted again holds two slots, and may leave early: a round trip, no more.
    const oldest = this.#order[this.#next]
    if (oldest !== undefined && oldest !== id) this.#ids.delete(oldest)
    this.#order[this.#next] = id
    this.#next = (this.#next + 1) % LIMITS.dedupeCacheMax
  }
}
