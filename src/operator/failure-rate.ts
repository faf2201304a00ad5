/**
 * Throughput and failures per minute, two ways: from the live instances' heartbeat counters (what
 * the bots did), and from the journal (records that failed or died in the last minute, which also
 * counts inbound handler failures that no counter names).
 */
import type { Journal } from '../core/durability/journal/backend.js'

/** Limits of the journal's count, named with units last. */
export const FAILURE_RATE_LIMITS = {
  /** The window the journal's count covers. */
  windowMs: 60_000,
  /** Records counted per lane at most; past it the count is a lower bound. */
  countMax: 10_000,
} as const

/** Counters that are work done, and counters that are failures, among the heartbeats' metrics. */
export const THROUGHPUT_METRICS = ['inboundJournaled', 'outboxJournaled'] as const
export const FAILURE_METRICS = ['outboxRetried', 'outboxAmbiguous', 'inboundDead', 'outboxDead'] as const

/** Per-minute figures. */
export interface FailureRate {
  /** From the heartbeats (null when no instance is live: nothing reports). */
  heartbeats: { throughputPerMinute: number; failuresPerMinute: number } | null
  /** Records that entered failed or dead within the last `windowMs`, per kind. */
  journal: { windowMs: number; failed: number; dead: number; capped: boolean }
}

/** The heartbeats' per-second rates as per-minute throughput and failures. */
export function heartbeatRates(ratesPerSecond: Record<string, number>, liveInstances: number): FailureRate['heartbeats'] {
  if (liveInstances === 0) return null
  const sum = (names: readonly string[]) => names.reduce((total, name) => total + (ratesPerSecond[name] ?? 0), 0)
  return { throughputPerMinute: round(sum(THROUGHPUT_METRICS) * 60), failuresPerMinute: round(sum(FAILURE_METRICS) * 60) }
}

/** Records of both journals that became failed or dead in the last window. */
export async function journalFailures(journal: Journal, now: number): Promise<FailureRate['journal']> {
  const since = now - FAILURE_RATE_LIMITS.windowMs
  let capped = false
  const count = async (state: 'failed' | 'dead') => {
    let total = 0
    for (const kind of ['inbox', 'outbox'] as const) {
      // The state-time index is in time order: start at the window's beginning.
      const found = await journal.list(kind, { state, after: { stateTime: since - 1, key: '' }, limit: FAILURE_RATE_LIMITS.countMax })
      if (found.length >= FAILURE_RATE_LIMITS.countMax) capped = true
      total += found.length
    }
    return total
  }
  const [failed, dead] = [await count('failed'), await count('dead')]
  return { windowMs: FAILURE_RATE_LIMITS.windowMs, failed, dead, capped }
}

function round(value: number): number {
  return Math.round(value * 10) / 10
}
