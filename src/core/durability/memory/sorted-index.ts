/**
 * A sorted set of (number, key) pairs: the in-memory form of the due and state-time indexes.
 * Binary search finds a position; splice keeps the array sorted (a memmove, cheap at 10^5..10^6).
 */
export class SortedIndex {
  readonly #times: number[] = []
  readonly #keys: string[] = []

  get size(): number {
    return this.#keys.length
  }

  add(time: number, key: string): void {
    // Times mostly grow: an add after the last entry is a push, with no search (and splice
    // allocates an array of what it removed).
    const last = this.#keys.length - 1
    const after = last < 0 || this.#times[last]! < time || (this.#times[last] === time && this.#keys[last]! < key)
    const at = after ? last + 1 : this.#position(time, key)
    if (at === this.#keys.length) {
      this.#times.push(time)
      this.#keys.push(key)
      return
    }
    this.#times.splice(at, 0, time)
    this.#keys.splice(at, 0, key)
  }

  remove(time: number, key: string): void {
    const at = this.#position(time, key)
    if (this.#keys[at] !== key || this.#times[at] !== time) return
    // The oldest and the newest go most often: shift and pop allocate nothing.
    if (at === 0) {
      this.#times.shift()
      this.#keys.shift()
    } else if (at === this.#keys.length - 1) {
      this.#times.pop()
      this.#keys.pop()
    } else {
      this.#times.splice(at, 1)
      this.#keys.splice(at, 1)
    }
  }

  /** Keys in order, starting after (time, key) if given, up to `limit`, while `time < before`. */
  range(options: {
    after?: { time: number; key: string }
    before?: number
    untilInclusive?: number
    limit: number
  }): { time: number; key: string }[] {
    const out: { time: number; key: string }[] = []
    let at = options.after ? this.#position(options.after.time, options.after.key) : 0
    if (options.after && this.#keys[at] === options.after.key && this.#times[at] === options.after.time) at++
    for (; at < this.#keys.length && out.length < options.limit; at++) {
      const time = this.#times[at]!
      if (options.before !== undefined && time >= options.before) break
      if (options.untilInclusive !== undefined && time > options.untilInclusive) break
      out.push({ time, key: this.#keys[at]! })
    }
    return out
  }

  /** How many entries have `time < before`. */
  countBefore(before: number): number {
    // '' sorts before every key: the first position at `before` is the first entry at or after it.
    return this.#position(before, '')
  }

  /** The first index whose (time, key) is not below the given pair. */
  #position(time: number, key: string): number {
    let low = 0
    let high = this.#keys.length
    while (low < high) {
      const mid = (low + high) >>> 1
      const t = this.#times[mid]!
      if (t < time || (t === time && this.#keys[mid]! < key)) low = mid + 1
      else high = mid
    }
    return low
  }
}
