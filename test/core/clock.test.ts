/**
 * The engine's clock writes every time of every record: whole milliseconds, as `Date.now()` gives,
 * even when the offset measured to the backend's clock falls on half a millisecond.
 */
import { describe, expect, it } from 'vitest'
import { MemoryDurability } from '../../src/core/index.js'
import { BackendClock } from '../../src/core/durability/leases/clock.js'

describe('BackendClock', () => {
  it('gives whole milliseconds after a sync whose round trip took an odd number of them', async () => {
    let local = 1_000
    // Each read of the local clock moves it on by one: the round trip takes 1 ms, its midpoint is x.5.
    const clock = new BackendClock(new MemoryDurability(), () => local++)
    await clock.sync()
    const now = clock.now()
    expect(Number.isInteger(now)).toBe(true)
    expect(JSON.stringify({ now })).toMatch(/^\{"now":\d+\}$/)
  })

  it('never runs backwards by a sync’s jitter (two messages a moment apart keep their order), but takes a real correction', async () => {
    let local = 10_000
    let remote = 10_000
    const backend = new MemoryDurability({ now: () => remote })
    const clock = new BackendClock(backend, () => local)
    await clock.sync()
    const first = clock.now()
    // The next sync measures the backend 3 ms behind (an asymmetric round trip): the clock holds.
    remote -= 3
    await clock.sync()
    expect(clock.now()).toBe(first)
    local += 5
    expect(clock.now()).toBe(first + 2)
    // A correction of ten minutes is a real one: taken at once.
    remote -= 600_000
    await clock.sync()
    expect(clock.now()).toBe(remote)
  })
})
