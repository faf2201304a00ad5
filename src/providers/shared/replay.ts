/**
 * Freshness and replay, for the webhooks whose sender signs a time or a token (issue 41 item 3):
 * a signed time more than `REPLAY_LIMITS.freshnessMs` (5 minutes) from this machine's clock is
 * refused, and a signature, token or webhook id seen once is refused again until it expires. The
 * cache is in memory and bounded: past `entriesMax` the expired entries go first, then the oldest.
 * Every check takes `now` from its caller, so tests set the clock instead of waiting on a timer.
 */

/** The freshness window and the replay cache's bound. */
export const REPLAY_LIMITS = {
  /** How far a signed time may be from this machine's clock, either way. @default 5 minutes */
  freshnessMs: 5 * 60_000,
  /** The most signatures, tokens or webhook ids one provider remembers. @default 10 000 */
  entriesMax: 10_000,
} as const

/** Whether `signedAtMs` is within `windowMs` of `now`, either way (false for a time that is not a finite number). */
export function isFresh(signedAtMs: number, now: number, windowMs: number = REPLAY_LIMITS.freshnessMs): boolean {
  return Number.isFinite(signedAtMs) && Math.abs(now - signedAtMs) <= windowMs
}

/** What a provider's webhook remembers to refuse a replay: each key until its own expiry. */
export class ReplayCache {
  /** Key to the last time (ms) it is refused; in insertion order, so the first is the oldest. */
  readonly #seen = new Map<string, number>()

  constructor(readonly entriesMax: number = REPLAY_LIMITS.entriesMax) {
    if (!Number.isInteger(entriesMax) || entriesMax < 1) throw new RangeError('entriesMax must be a positive integer')
  }

  /** How many keys are held. */
  get size(): number {
    return this.#seen.size
  }

  /**
   * Records `key` until `expiresAt` (inclusive) and says true, or says false when it was already seen and has
   * not expired at `now` (a replay: refuse the request).
   */
  firstSight(key: string, expiresAt: number, now: number): boolean {
    const held = this.#seen.get(key)
    if (held !== undefined && held >= now) return false
    this.#seen.delete(key)
    if (this.#seen.size >= this.entriesMax) this.#evict(now)
    this.#seen.set(key, expiresAt)
    return true
  }

  /** Forgets `key` (its request failed on this side, and the sender's retry may carry it again). */
  forget(key: string): void {
    this.#seen.delete(key)
  }

  /** Drops the expired keys; if none had expired, the oldest. */
  #evict(now: number): void {
    for (const [key, expiresAt] of this.#seen) if (expiresAt < now) this.#seen.delete(key)
    if (this.#seen.size >= this.entriesMax) {
      const oldest = this.#seen.keys().next()
      if (!oldest.done) this.#seen.delete(oldest.value)
    }
  }
}
