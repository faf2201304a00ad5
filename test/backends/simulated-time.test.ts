/**
 * Simulated time fires the timers of the work run under it by their due times, one at a time, and
 * only once the work has nothing else to do: a handler that blocks the real event loop for longer
 * than a lease cannot make a heartbeat come late. Code outside it keeps real timers and Date.now.
 */
import { describe, expect, it } from 'vitest'
import { SimulatedTime } from '../../src/testing/crash-matrix/simulated-time.js'

const blockFor = (ms: number) => {
  const until = performance.now() + ms
  while (performance.now() < until);
}

describe('SimulatedTime', () => {
  it('fires timers by due time, whatever real time the callbacks take, and moves Date.now with them', async () => {
    const time = new SimulatedTime(1_000)
    time.start()
    try {
      const fired = await time.enter(async () => {
        const log: string[] = []
        const beats = setInterval(() => log.push(`beat ${Date.now()}`), 100)
        await new Promise<void>((resolve) =>
          setTimeout(() => {
            // A slow step on real time: the 100 ms interval is not due twice over because of it.
            blockFor(60)
            log.push(`slow done ${Date.now()}`)
            resolve()
          }, 250),
        )
        await new Promise((resolve) => setTimeout(resolve, 100))
        clearInterval(beats)
        return log
      })
      expect(fired).toEqual(['beat 1100', 'beat 1200', 'slow done 1250', 'beat 1300'])
      expect(time.now()).toBe(1_350)
    } finally {
      time.stop()
    }
  })

  it('timers due at the same time fire in the order they were set; a cleared one never fires', async () => {
    const time = new SimulatedTime(0)
    time.start()
    try {
      const log = await time.enter(async () => {
        const order: number[] = []
        for (const n of [1, 2, 3]) setTimeout(() => order.push(n), 10)
        clearTimeout(setTimeout(() => order.push(99), 5))
        await new Promise((resolve) => setTimeout(resolve, 20))
        return order
      })
      expect(log).toEqual([1, 2, 3])
    } finally {
      time.stop()
    }
  })

  it('code outside the work keeps real timers and Date.now, and stop() gives everything back', async () => {
    const realSetTimeout = globalThis.setTimeout
    const time = new SimulatedTime(0)
    time.start()
    try {
      expect(Math.abs(Date.now() - new Date().getTime())).toBeLessThan(1_000)
      expect(await time.enter(async () => [Date.now(), process.hrtime.bigint()])).toEqual([0, 0n])
      expect(await time.enter(async () => new Promise((resolve) => setTimeout(() => resolve(process.hrtime([0, 0])), 1_500)))).toEqual([
        1, 500_000_000,
      ])
    } finally {
      time.stop()
    }
    expect(globalThis.setTimeout).toBe(realSetTimeout)
    expect(process.hrtime.bigint()).toBeGreaterThan(0n)
    expect(await time.enter(async () => Math.abs(Date.now() - new Date().getTime()))).toBeLessThan(1_000)
  })
})
