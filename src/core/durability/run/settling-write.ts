/**
 * A write that records an outcome this process already knows (a send the provider accepted, a
 * message whose effects settled, a message released for a replay) is tried again while the journal
 * is briefly unavailable (a server restart, a dropped connection): giving up at once would turn a
 * delivered send into an ambiguous one, or replay a message for nothing. It keeps trying for half
 * the record's lease: the lease is still this process's then, so nobody else can have moved on.
 */
import { JournalUnavailableError } from '../../errors/errors.js'
import { backoffMs } from '../backoff.js'
import type { ResolvedBackoff } from '../config.js'
import { LIMITS } from '../limits.js'

/** Runs `write`, retrying a retryable `JournalUnavailableError` with `backoff` until `budgetMs` is spent (about LIMITS.settlingWriteAttemptsMax tries at most). */
export function settlingWrite<T>(retry: { backoff: ResolvedBackoff; budgetMs: number }, write: () => Promise<T>): Promise<T> {
  // The first try is made directly; only a failure enters the retry loop (one promise on the happy path).
  const started = Date.now()
  let first: Promise<T>
  try {
    first = write()
  } catch (error) {
    first = Promise.reject(error)
  }
  return first.catch((error: unknown) => retryAfter(retry, write, started, error))
}

async function retryAfter<T>(
  retry: { backoff: ResolvedBackoff; budgetMs: number },
  write: () => Promise<T>,
  started: number,
  firstError: unknown,
): Promise<T> {
  let error = firstError
  // The waits follow the backoff; once it stopped growing, they spread what is left of the budget
  // over at most LIMITS.settlingWriteAttemptsMax more tries, and the last is cut to end at the
  // budget: the write is tried for the whole half lease (a backoff step past it gave up early).
  const spreadMs = retry.budgetMs / LIMITS.settlingWriteAttemptsMax
  for (let attempt = 1; ; attempt++) {
    const leftMs = retry.budgetMs - (Date.now() - started)
    if (!(error instanceof JournalUnavailableError) || !error.retryable || leftMs <= 0) throw error
    const backoff = backoffMs(retry.backoff, attempt)
    // Grown: the previous wait was already at the cap.
    const grown = retry.backoff.baseMs * 2 ** (attempt - 2) >= retry.backoff.capMs
    const waitMs = Math.min(grown ? Math.max(backoff, spreadMs) : backoff, leftMs)
    await new Promise((resolve) => setTimeout(resolve, waitMs))
    try {
      return await write()
    } catch (next) {
      error = next
    }
  }
}

/** How a settling write of `kind` retries: that side's backoff, for half its lease. */
export function settlingRetry(
  config: { inbox: { backoff: ResolvedBackoff; leaseMs: number }; outbox: { backoff: ResolvedBackoff; leaseMs: number } },
  kind: 'inbox' | 'outbox',
) {
  return { backoff: config[kind].backoff, budgetMs: config[kind].leaseMs / 2 }
}
