/**
 * A sorted set of (number, key) pairs: the in-memory form of the due and state-time indexes.
 *
 * Kept in chunks of at most CHUNK_MAX pairs, so an add or a remove anywhere moves at most a chunk
 * (one sorted array moved the whole index: with a backlog of admitted messages, every completion
 * paid for all of them, and a 40,000-message burst spent 44% of its CPU there). Binary search over
 * the chunks' last pairs finds a chunk, then within it. (sorted-btree, the B+ tree on npm, is a
 * CommonJS module whose class is its `default` export, which Node's ESM import does not unwrap.)
 */

/** Pairs per chunk: a splice within one is a short memmove. */
const CHUNK_MAX = 512

interface Chunk {
  times: number[]
  keys: string[]
}

/** Where a pair sits: a chunk and a position in it. */
interface Place {
  chunk: number
  at: number
}

export class SortedIndex {
  readonly #chunks: Chunk[] = []
  #size = 0

  get size(): number {
    return this.#size
  }

  add(time: number, key: string): void {
    this.#size++
    const last = this.#chunks.at(-1)
    // Times mostly grow: an add after the last pair is a push, with no search.
    if (!last || below(last, last.keys.length - 1, time, key)) {
      if (!last || last.keys.length >= CHUNK_MAX) this.#chunks.push({ times: [time], keys: [key] })
      else {
        last.times.push(time)
        last.keys.push(key)
      }
      return
    }
    const { chunk, at } = this.#place(time, key)
    const target = this.#chunks[chunk]!
    target.times.splice(at, 0, time)
    target.keys.splice(at, 0, key)
    if (target.keys.length > CHUNK_MAX) {
      const half = target.keys.length >>> 1
      this.#chunks.splice(chunk + 1, 0, { times: target.times.splice(half), keys: target.keys.splice(half) })
    }
  }

  remove(time: number, key: string): void {
    const { chunk, at } = this.#place(time, key)
    const target = this.#chunks[chunk]
    if (!target || target.keys[at] !== key || target.times[at] !== time) return
    this.#size--
    if (target.keys.length === 1) {
      this.#chunks.splice(chunk, 1)
      return
    }
    target.times.splice(at, 1)
    target.keys.splice(at, 1)
  }

  /** Keys in order, starting after (time, key) if given, up to `limit`, while `time < before`. */
  range(options: {
    after?: { time: number; key: string }
    before?: number
    untilInclusive?: number
    limit: number
  }): { time: number; key: string }[] {
    const out: { time: number; key: string }[] = []
    const { after, before, untilInclusive, limit } = options
    let { chunk, at } = after ? this.#place(after.time, after.key) : { chunk: 0, at: 0 }
    const first = this.#chunks[chunk]
    if (after && first && first.keys[at] === after.key && first.times[at] === after.time) at++
    for (; chunk < this.#chunks.length && out.length < limit; chunk++, at = 0) {
      const { times, keys } = this.#chunks[chunk]!
      for (; at < keys.length && out.length < limit; at++) {
        const time = times[at]!
        if ((before !== undefined && time >= before) || (untilInclusive !== undefined && time > untilInclusive)) return out
        out.push({ time, key: keys[at]! })
      }
    }
    return out
  }

  /** How many pairs have `time < before`. */
  countBefore(before: number): number {
    // '' sorts before every key: the first place at `before` is the first pair at or after it.
    const { chunk, at } = this.#place(before, '')
    let count = at
    for (let n = 0; n < chunk; n++) count += this.#chunks[n]!.keys.length
    return count
  }

  /** The first place whose pair is not below (time, key); past the last chunk when every pair is. */
  #place(time: number, key: string): Place {
    const chunks = this.#chunks
    let low = 0
    let high = chunks.length
    while (low < high) {
      const mid = (low + high) >>> 1
      const candidate = chunks[mid]!
      if (below(candidate, candidate.keys.length - 1, time, key)) low = mid + 1
      else high = mid
    }
    if (low === chunks.length) return { chunk: low, at: 0 }
    const { keys } = chunks[low]!
    let first = 0
    let last = keys.length
    while (first < last) {
      const mid = (first + last) >>> 1
      if (below(chunks[low]!, mid, time, key)) first = mid + 1
      else last = mid
    }
    return { chunk: low, at: first }
  }
}

/** Whether the pair at `at` of `chunk` sorts below (time, key). */
function below(chunk: Chunk, at: number, time: number, key: string): boolean {
  const t = chunk.times[at]!
  return t < time || (t === time && chunk.keys[at]! < key)
}
