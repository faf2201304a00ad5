/**
 * The rules the steps apply (journal-steps.ts), once for every store written in TypeScript: the
 * lease and the fencing token of a claim, when a message is free to be claimed, when a run is
 * fenced, and what a run's end and a sent mark write. A store in another language (Lua, SQL) writes
 * the same rules in its own; the steps' conformance cases hold both to them.
 */
import { claimRun, unfinishedRunsError } from '../leases/charged-runs.js'
import { bySeq } from '../turns/chat-order.js'
import type { InboxRecord, Lease, OutboxRecord } from '../journal/records.js'
import type { RunEnd, StepClaim, TakenBack } from './journal-steps.js'

/** The inbox states of a message still unfinished: it holds its chat's later messages behind it. */
export const UNFINISHED_STATES: ReadonlySet<string> = new Set(['pending', 'processing', 'failed'])

/** The lease a claim takes under `token`. */
export function leaseOf(claim: StepClaim, token: number): Lease {
  return { owner: claim.owner, token, expiresAt: claim.now + claim.leaseMs, acquiredAt: claim.now, incarnation: claim.incarnation }
}

/** A message admitted behind its chat's unfinished one: pending, no run charged, no lease, until it is handed over. */
export function queuedRecord(record: InboxRecord): InboxRecord {
  return { ...record, state: 'pending', attempts: 0, fencingToken: 0, lease: null }
}

/** A message claimed: processing, one more run charged, the next fencing token and a lease under it. */
export function claimedRecord(record: InboxRecord, claim: StepClaim): InboxRecord {
  return { ...claimRun(record, (token) => leaseOf(claim, token)), nextAttemptAt: null, updatedAt: claim.now }
}

/**
 * Whether a chat's head message may be claimed now: waiting (pending; failed with its retry due), or
 * processing under a lease that is over or that an earlier run of this owner took (it died).
 */
export function isFree(record: InboxRecord, claim: StepClaim): boolean {
  if (record.state === 'pending') return true
  if (record.state === 'failed') return (record.nextAttemptAt ?? 0) <= claim.now
  if (record.state !== 'processing') return false
  const lease = record.lease
  if (!lease || lease.expiresAt <= claim.now) return true
  return lease.owner === claim.owner && lease.incarnation !== undefined && lease.incarnation !== claim.incarnation
}

/**
 * Whether `record` was claimed by this very run (`claim`'s owner and incarnation) and is not run by it
 * (`runs`): the claim landed but its answer was lost (a dropped connection), so nothing runs it. Its
 * claim charged the run that comes next, which it may have at once.
 */
export function isUnrunClaim(record: InboxRecord, claim: StepClaim, runs: (id: string) => boolean): boolean {
  const lease = record.lease
  return record.state === 'processing' && lease?.owner === claim.owner && lease.incarnation === claim.incarnation && !runs(record.id)
}

/**
 * Whether `record`'s next run, its last before its runs are spent, must run alone in the process:
 * the run before it never ended (it is still processing, its lease over or of a dead run). A
 * message that crashes the process on every run charges a run to every message running beside it
 * at each crash; run alone, a last run that crashes is its own, so no message beside a crash loop
 * spends its runs on another's crashes and is dead-lettered with it.
 */
export function isLastRunAlone(record: InboxRecord, maxAttempts: number): boolean {
  return record.state === 'processing' && record.attempts + 1 === maxAttempts
}

/** Whether a run under `token` may no longer write for the message: it is not processing under that token. */
export function isFenced(record: InboxRecord | undefined, token: number): boolean {
  return record?.state !== 'processing' || record.fencingToken !== token || record.lease?.token !== token
}

/** The message with its run's end written: no lease, and a retry time when it runs again. */
export function endedRecord(record: InboxRecord, end: RunEnd, now: number): InboxRecord {
  const ended: InboxRecord = { ...record, state: end.state, lease: null, nextAttemptAt: null, updatedAt: now }
  if (end.state === 'done') return end.note === undefined ? ended : { ...ended, note: end.note }
  if (end.state === 'failed') return { ...ended, nextAttemptAt: end.retryAt, lastError: end.error }
  return { ...ended, lastError: end.error }
}

/** A message whose runs were spent, dead-lettered at its claim: with its last error, or that its runs never completed. */
export function spentRecord(record: InboxRecord, now: number): InboxRecord {
  const lastError = record.lastError ?? unfinishedRunsError(record.attempts, 'process', now)
  return { ...record, state: 'dead', lease: null, nextAttemptAt: null, lastError, updatedAt: now }
}

/** A send the provider accepted as `messageId`, marked sent. */
export function sentOutboxRecord(record: OutboxRecord, messageId: string, now: number): OutboxRecord {
  return {
    ...record,
    state: 'sent',
    attempts: record.attempts + 1,
    providerMessageId: messageId,
    lease: null,
    nextAttemptAt: null,
    lastError: null,
    updatedAt: now,
  }
}

/** A chat's order: by the place each message took at its admission (chat-order.ts), then by id. */
export function chatOrder(a: InboxRecord, b: InboxRecord): number {
  return bySeq(a, b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
}

/**
 * A message a `takeBack` pass answered, from a store in another language (Lua, SQL): its code ('0'
 * claimed, '1' dead-lettered, '2' left to an alone pass) and its record's JSON.
 */
export function takenBackOf(code: string, json: string): TakenBack {
  const record = JSON.parse(json) as InboxRecord
  if (code === '2') return { record, dead: false, waitsAlone: true }
  return { record, dead: code === '1' }
}
