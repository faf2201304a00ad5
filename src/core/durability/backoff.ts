/** Exponential backoff with jitter, shared by inbound retries and send retries. */
import type { ResolvedBackoff } from './config.js'

/**
 * The wait before attempt `attempt + 1`, after `attempt` failed attempts (1-based): `baseMs * 2^(attempt-1)`,
 * capped at `capMs`, spread by ± `jitter`, and never below `atLeastMs` (a RateLimitedError's retryAfterMs).
 */
export function backoffMs(backoff: ResolvedBackoff, attempt: number, atLeastMs = 0, random: () => number = Math.random): number {
  const exponential = Math.min(backoff.capMs, backoff.baseMs * 2 ** Math.max(0, attempt - 1))
  const spread = exponential * backoff.jitter * (random() * 2 - 1)
  return Math.max(atLeastMs, Math.round(exponential + spread))
}
