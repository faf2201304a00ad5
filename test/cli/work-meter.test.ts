/**
 * What `bench` says a message costs: the figures come from the readings (CPU, the used heap, each
 * collection, promises created), divided by the messages. Counts and bytes only: no time is asserted.
 */
import { describe, expect, it } from 'vitest'
import { costPerMessage } from '../../src/cli/services/bench.js'
import { countPromises } from '../../src/cli/services/promise-count.js'
import { startWorkMeter, workCostOf } from '../../src/cli/services/work-meter.js'

describe('workCostOf', () => {
  it('allocated bytes are the heap growth plus what each collection freed; GC pause the sum of the pauses', () => {
    const cost = workCostOf({
      cpuMicros: 5_000,
      usedAtStart: 1_000_000,
      usedAtEnd: 1_500_000,
      collections: [
        { usedBefore: 3_000_000, usedAfter: 1_200_000, costMicros: 400 },
        { usedBefore: 2_600_000, usedAfter: 1_400_000, costMicros: 250 },
      ],
    })
    expect(cost).toEqual({ cpuMicros: 5_000, allocatedBytes: 500_000 + 1_800_000 + 1_200_000, gcMicros: 650, collections: 2 })
  })

  it('a collection that grew the heap (promotion) frees nothing; a shrinking heap never gives a negative total', () => {
    const cost = workCostOf({
      cpuMicros: 0,
      usedAtStart: 2_000_000,
      usedAtEnd: 100_000,
      collections: [{ usedBefore: 1_000_000, usedAfter: 1_100_000, costMicros: 10 }],
    })
    expect(cost.allocatedBytes).toBe(0)
  })
})

describe('costPerMessage', () => {
  it('divides the cost by the messages, CPU and GC in microseconds, bytes whole', () => {
    expect(costPerMessage({ cpuMicros: 123_456, allocatedBytes: 7_654_321, gcMicros: 9_876, collections: 3 }, 1_000)).toEqual({
      cpuMicrosPerMessage: 123.5,
      allocatedBytesPerMessage: 7_654,
      gcMicrosPerMessage: 9.88,
    })
  })
})

describe('startWorkMeter', () => {
  it('sees what the work between start and stop allocated, and spent CPU on it', () => {
    const meter = startWorkMeter()
    const kept: number[][] = []
    // 64 arrays of 64 Ki doubles: at least 32 MiB on the heap, kept or collected.
    for (let i = 0; i < 64; i++) kept.push(new Array<number>(65_536).fill(i + 0.5))
    const cost = meter.stop()
    expect(kept).toHaveLength(64)
    expect(cost.allocatedBytes).toBeGreaterThanOrEqual(32 * 1024 * 1024)
    expect(cost.cpuMicros).toBeGreaterThan(0)
    expect(cost.collections).toBeGreaterThanOrEqual(0)
  })
})

describe('countPromises', () => {
  const creating = (n: number) => async () => {
    for (let i = 0; i < n; i++) void Promise.resolve(i)
  }

  it('counts each promise the work creates (and the few the process makes meanwhile)', async () => {
    expect(await countPromises(creating(300))).toBeGreaterThanOrEqual(300)
    expect(await countPromises(creating(0))).toBeLessThan(50)
  })

  it("passes on the work's failure", async () => {
    await expect(countPromises(() => Promise.reject(new Error('work failed')))).rejects.toThrow('work failed')
  })
})
