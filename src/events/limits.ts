/**
 * The events journals' defaults and limits, named, with units last, in one place.
 */
export const EVENTS_LIMITS = {
  /** A mutex whose holder has not refreshed it for this long is treated as abandoned. */
  staleLockMsDefault: 30_000,
  /** The holder refreshes the mutex's mtime this many times per `staleLockMs`, by default. */
  heartbeatsPerStaleLock: 3,
  /** A wait for the mutex gives up after this many `staleLockMs` (a live holder that keeps it fresh but never lets go). */
  mutexWaitStaleLocks: 3,
  /** First and longest pause between two tries for a held mutex (with jitter). */
  mutexRetryFirstMs: 1,
  /** The longest pause between two tries for a held mutex, in ms. */
  mutexRetryMaxMs: 20,
  /** Records one claim takes at most. */
  claimBatchMax: 1_000,
  /** Records one replay re-queues, by default and at most per call. */
  replayBatchMax: 1_000,
  /** Records one purge deletes, by default. */
  purgeBatchMax: 1_000,
  /** Records one list() returns, by default. */
  listPageDefault: 100,
} as const

/** EventWorker's defaults. */
export const WORKER_DEFAULTS = {
  /** How long a claimed event is the worker's before another may take it, in ms. */
  leaseMs: 30_000,
  /** The pause between two claims that found nothing, in ms. */
  pollMs: 1_000,
  /** Events one claim takes at most. */
  batchSize: 10,
  /** Runs before a failing event is dead-lettered. */
  maxAttempts: 5,
  /** The wait before a retry: doubling from `baseMs` up to `capMs`. */
  backoff: {
    /** The first wait, in ms. */
    baseMs: 1_000,
    /** The longest wait, in ms. */
    capMs: 60_000,
  },
} as const
