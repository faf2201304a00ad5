/**
 * The soak's parts apart from a run: the flatness verdict from given samples, the latency sample's
 * bound, and the steady-rate driver's bound on messages in flight. No time is asserted.
 */
import { describe, expect, it } from 'vitest'
import { FLAT_SPREAD_MAX_PERCENT, flatnessOf, spreadOf } from '../../bench/soak/flatness.js'
import { LatencySample } from '../../bench/soak/latency-sample.js'
import { SteadyRate } from '../../bench/soak/steady-rate.js'
import { waitFor } from '../../test-utils/wait.js'

const sample = (atSeconds: number, journalRecords: number, rssBytes: number) => ({ atSeconds, journalRecords, rssBytes })

describe('flatness', () => {
  it('spread is (highest − lowest) ÷ mean, in percent', () => {
    expect(spreadOf([90, 100, 110])).toEqual({ min: 90, max: 110, mean: 100, spreadPercent: 20 })
    expect(spreadOf([0, 0])).toEqual({ min: 0, max: 0, mean: 0, spreadPercent: 0 })
    expect(spreadOf([5])).toBeNull()
  })

  it('judges only the last half: a journal filling up in the first half is still flat', () => {
    const samples = [
      sample(30, 1_000, 60e6),
      sample(60, 5_000, 80e6),
      sample(90, 9_000, 90e6),
      sample(120, 9_500, 92e6),
      sample(150, 9_200, 91e6),
      sample(180, 9_400, 93e6),
    ]
    const flatness = flatnessOf(samples, 180)
    expect(flatness).toMatchObject({ fromSeconds: 90, samples: 4, spreadMaxPercent: FLAT_SPREAD_MAX_PERCENT, flat: true })
    expect(flatness.journalRecords).toMatchObject({ min: 9_000, max: 9_500 })
    expect(flatness.journalRecords!.spreadPercent).toBeCloseTo((500 / 9_275) * 100, 1)
  })

  it('a journal that keeps growing over the last half is not flat, nor is an RSS that does', () => {
    const growing = [sample(60, 10_000, 80e6), sample(120, 20_000, 80e6), sample(180, 30_000, 80e6)]
    expect(flatnessOf(growing, 180)).toMatchObject({ samples: 2, flat: false })
    const leaking = [sample(60, 10_000, 80e6), sample(120, 10_000, 100e6), sample(180, 10_000, 130e6)]
    expect(flatnessOf(leaking, 180)).toMatchObject({ flat: false, journalRecords: { spreadPercent: 0 } })
  })

  it('with fewer than two samples in the last half, no verdict', () => {
    expect(flatnessOf([sample(8, 100, 1), sample(20, 100, 1)], 20)).toMatchObject({ samples: 1, flat: null, journalRecords: null })
  })
})

describe('LatencySample', () => {
  it('keeps every value up to its capacity, then a sample of that many', () => {
    const latencies = new LatencySample(100)
    for (let i = 1; i <= 100; i++) latencies.add(i)
    expect(latencies.percentiles([0.5, 0.99, 1])).toEqual([50, 99, 100])
    for (let i = 0; i < 10_000; i++) latencies.add(1_000)
    expect(latencies.count).toBe(10_100)
    // Nearly every kept value is now one of the 10,000 late ones.
    expect(latencies.percentiles([0.5])).toEqual([1_000])
    expect(new LatencySample().percentiles([0.5, 0.99])).toEqual([0, 0])
  })
})

describe('SteadyRate', () => {
  it('sends every message, never more than inFlightMax unanswered, and counts failures apart', async () => {
    const gates: (() => void)[] = []
    let inFlight = 0
    let mostInFlight = 0
    const latencies: number[] = []
    const driver = new SteadyRate(
      { rate: 10_000, count: 40, inFlightMax: 5, startedAt: performance.now() },
      async (n) => {
        mostInFlight = Math.max(mostInFlight, ++inFlight)
        await new Promise<void>((resolve) => gates.push(resolve))
        inFlight--
        if (n % 10 === 9) throw new Error(`refused ${n}`)
      },
      (latencyMs) => latencies.push(latencyMs),
    )
    const running = driver.run()
    await waitFor(() => driver.sent === 5)
    expect(driver.inFlight).toBe(5)
    // Answer whatever waits until the run has sent all 40.
    const answering = (async () => {
      while (driver.sent < 40 || driver.inFlight > 0) {
        gates.splice(0).forEach((open) => open())
        await new Promise((resolve) => setImmediate(resolve))
      }
    })()
    await running
    await driver.drain(10_000)
    await answering
    expect(mostInFlight).toBe(5)
    expect({ sent: driver.sent, answered: driver.answered, failed: driver.failed, inFlight: driver.inFlight }).toEqual({
      sent: 40,
      answered: 36,
      failed: 4,
      inFlight: 0,
    })
    expect(driver.firstError).toBe('refused 9')
    expect(latencies).toHaveLength(36)
  })

  it('an abort ends the run before every message was sent', async () => {
    const abort = new AbortController()
    const driver = new SteadyRate(
      { rate: 1, count: 1_000, inFlightMax: 10, startedAt: performance.now(), signal: abort.signal },
      async () => {},
      () => {},
    )
    const running = driver.run()
    await waitFor(() => driver.answered === 1)
    abort.abort()
    await running
    expect(driver.sent).toBeLessThan(1_000)
  })
})
