/**
 * The memory store's sorted index against a plain sorted list: any run of adds and removes (times
 * clustered so chunks split and empty, pairs repeated) gives the same ranges, counts and size.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { SortedIndex } from '../../src/core/durability/memory/sorted-index.js'

type Pair = { time: number; key: string }
const order = (a: Pair, b: Pair) => a.time - b.time || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)

/** The model: a sorted array of distinct pairs. */
class Model {
  readonly #held = new Map<string, Pair>()
  has(pair: Pair): boolean {
    return this.#held.has(`${pair.time}|${pair.key}`)
  }
  add(pair: Pair): void {
    this.#held.set(`${pair.time}|${pair.key}`, pair)
  }
  remove(pair: Pair): void {
    this.#held.delete(`${pair.time}|${pair.key}`)
  }
  get pairs(): Pair[] {
    return [...this.#held.values()].sort(order)
  }
}

const pair = fc.record({ time: fc.integer({ min: 0, max: 40 }), key: fc.string({ maxLength: 3 }) })
const step = fc.oneof(
  fc.record({ op: fc.constant('add' as const), pair }),
  fc.record({ op: fc.constant('remove' as const), pair }),
  // A run of growing times: the push path, and chunks filling up.
  fc.record({ op: fc.constant('burst' as const), count: fc.integer({ min: 1, max: 1_200 }) }),
)

describe('SortedIndex', () => {
  it('agrees with a sorted list on range, countBefore and size after any adds and removes', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), pair, fc.integer({ min: 0, max: 60 }), (steps, after, before) => {
        const index = new SortedIndex()
        const model = new Model()
        let next = 1_000
        for (const s of steps) {
          if (s.op === 'burst') {
            for (let n = 0; n < s.count; n++, next++) {
              const added = { time: next % 7 === 0 ? next - 500 : next, key: `k${n % 3}` }
              if (!model.has(added)) index.add(added.time, added.key)
              model.add(added)
            }
            // Then a third of it goes again, from the middle: chunks empty and vanish.
            const pairs = model.pairs
            for (const p of pairs.slice(pairs.length / 3, (2 * pairs.length) / 3)) {
              index.remove(p.time, p.key)
              model.remove(p)
            }
          } else if (s.op === 'add') {
            if (!model.has(s.pair)) index.add(s.pair.time, s.pair.key)
            model.add(s.pair)
          } else {
            index.remove(s.pair.time, s.pair.key)
            model.remove(s.pair)
          }
        }
        const pairs = model.pairs
        expect(index.size).toBe(pairs.length)
        expect(index.range({ limit: Infinity })).toEqual(pairs)
        expect(index.range({ after, limit: 50 })).toEqual(pairs.filter((p) => order(p, after) > 0).slice(0, 50))
        expect(index.range({ before, limit: 20 })).toEqual(pairs.filter((p) => p.time < before).slice(0, 20))
        expect(index.range({ untilInclusive: before, limit: 20 })).toEqual(pairs.filter((p) => p.time <= before).slice(0, 20))
        expect(index.countBefore(before)).toBe(pairs.filter((p) => p.time < before).length)
        expect(index.countBefore(1_500)).toBe(pairs.filter((p) => p.time < 1_500).length)
      }),
      { numRuns: 100 },
    )
  })
})
