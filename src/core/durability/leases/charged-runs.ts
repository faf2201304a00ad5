/**
 * The rule of charged runs and claims, one for the bot's inbox (inbox.ts) and for the event journals
 * an app keeps (src/events): a claim charges one run and takes the next fencing token, so the former
 * holder's writes are refused from then on, and the new lease is held under that token. A record that
 * has had its runs charged is dead-lettered instead of being run again, whether its last run failed or
 * never completed. A leaf module: both import it, and it imports only the fencing rule.
 */
import { nextToken, type Fenced } from './fencing.js'

/** What a claim reads of a record. */
export interface Claimable extends Fenced {
  /** Runs charged so far. */
  attempts: number
}

/** A record claimed: processing, one more run charged, the next fencing token and a lease under it. */
export function claimRun<R extends Claimable, L>(
  record: R,
  leaseUnder: (token: number) => L,
): R & { state: 'processing'; attempts: number; fencingToken: number; lease: L } {
  const token = nextToken(record)
  return { ...record, state: 'processing', attempts: record.attempts + 1, fencingToken: token, lease: leaseUnder(token) }
}

/** Whether a record that has had `attempts` runs charged may not be run again. */
export function runsSpent(attempts: number, maxAttempts: number): boolean {
  return attempts >= maxAttempts
}

/**
 * What a record dead-lettered at a claim carries when no run of it recorded an error: its runs
 * never completed, because `runner` (the process, the worker) crashed or froze.
 */
export function unfinishedRunsError(attempts: number, runner: string, now: number): { message: string; at: number } {
  return { message: `${attempts} runs did not complete (the ${runner} crashed or froze)`, at: now }
}
