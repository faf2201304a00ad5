/**
 * The rule of charged runs, for event records: a claim charges a run; a record that has had
 * `maxAttempts` runs charged is dead-lettered instead of being run again, whether its last run
 * failed (the worker marks it dead) or never completed (the next claim finds its lease over). The
 * bot's inbox keeps the same rule in src/core/durability/inbox.ts (`claimInbound`, `failInbound`),
 * and its backoff is that of src/core/durability/backoff.ts, without jitter.
 */
import { backoffMs } from '../core/durability/backoff.js'
import type { EventError } from './record.js'

/** Whether a record that has had `attempts` runs charged may not be run again. */
export function runsSpent(attempts: number, maxAttempts: number): boolean {
  return attempts >= maxAttempts
}

/** What a record dead-lettered at a claim carries when no run of it recorded an error. */
export function unfinishedRunsError(attempts: number, now: number): EventError {
  return { message: `${attempts} runs did not complete (the worker crashed or froze)`, at: now }
}

/** The wait before a failed record is run again, after `attempts` charged runs. */
export function retryDelayMs(backoff: { baseMs: number; capMs: number }, attempts: number): number {
  return backoffMs({ ...backoff, jitter: 0 }, attempts)
}
