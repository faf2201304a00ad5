/**
 * A write that records an outcome the process already knows (a send the provider accepted, a
 * message whose effects settled) keeps trying for half the record's lease, as documented: with the
 * default backoff and lease (60 s), a 15 s outage of the journal must not turn a delivered send into
 * an unknown one. Driven by fake timers: no test time depends on the machine.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { DEFAULT_BACKOFF } from '../../src/core/durability/config.js'
import { settlingWrite } from '../../src/core/durability/run/settling-write.js'
import { ConfigError, JournalUnavailableError } from '../../src/core/errors/errors.js'

/** A write that fails with JOURNAL_UNAVAILABLE until `outageMs` of (fake) time passed, and counts its tries. */
function writeDownFor(outageMs: number) {
  const started = Date.now()
  const tries: number[] = []
  const write = async () => {
    tries.push(Date.now() - started)
    if (Date.now() - started < outageMs) throw new JournalUnavailableError('the journal is down')
    return 'recorded'
  }
  return { write, tries }
}

const DEFAULT_LEASE_BUDGET = { backoff: { ...DEFAULT_BACKOFF, jitter: 0 }, budgetMs: 60_000 / 2 }

describe('settlingWrite', () => {
  beforeEach(() => vi.useFakeTimers())
  afterEach(() => vi.useRealTimers())

  it.each([15_500, 20_000, 29_000])('records the outcome after a %i ms outage (default backoff, half a 60 s lease)', async (outageMs) => {
    const { write, tries } = writeDownFor(outageMs)
    const settled = settlingWrite(DEFAULT_LEASE_BUDGET, write)
    await vi.advanceTimersByTimeAsync(31_000)
    await expect(settled).resolves.toBe('recorded')
    expect(tries.at(-1)).toBeLessThanOrEqual(30_000)
  })

  it('gives up once half the lease is spent, with a bounded number of tries', async () => {
    const { write, tries } = writeDownFor(Infinity)
    const settled = settlingWrite({ backoff: { baseMs: 1, capMs: 2, jitter: 0 }, budgetMs: 30_000 }, write)
    const failed = expect(settled).rejects.toBeInstanceOf(JournalUnavailableError)
    await vi.advanceTimersByTimeAsync(31_000)
    await failed
    expect(tries.at(-1)).toBe(30_000)
    expect(tries.length).toBeLessThanOrEqual(24)
  })

  it('does not retry a failure that is not a retryable unavailable journal', async () => {
    let tries = 0
    await expect(
      settlingWrite(DEFAULT_LEASE_BUDGET, async () => {
        tries++
        throw new ConfigError('bad')
      }),
    ).rejects.toBeInstanceOf(ConfigError)
    expect(tries).toBe(1)
  })
})
