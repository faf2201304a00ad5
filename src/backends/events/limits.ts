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
  leaseMs: 30_000,
  pollMs: 1_000,
  batchSize: 10,
  maxAttempts: 5,
  backoff: { baseMs: 1_000, capMs: 60_000 },
} as const
