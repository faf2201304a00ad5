/**
 * What an operator does to records: replay an inbound, retry a send, discard a send. Each is a
 * compare-and-set, so a record a running bot changed meanwhile is never overwritten; each leaves an
 * audit entry (who, when, why) on the record. The bot's `durability` handle, the CLI and the
 * dashboard all call these.
 */
import { SEQ_PER_MS } from '../turns/chat-order.js'
import { hostname, userInfo } from 'node:os'
import { InvalidStateError, RecordNotFoundError, RecordStateError, ERROR_CODES } from '../../errors/errors.js'
import type { Journal } from '../journal/backend.js'
import type { AuditEntry, InboxRecord, OutboxRecord } from '../journal/records.js'

/** Who asks, and why (kept on the record). */
export interface OperatorChange {
  /** Who makes the change. @default the OS user and host, `user@host` (`pid N@host` when the user cannot be read) */
  by?: string
  /** Why, as the operator typed it. @default none (the audit entry has no reason) */
  reason?: string
  /** When (ms); defaults to now. */
  at?: number
}

/** Inbox states an operator may replay. */
export const REPLAYABLE_STATES = ['dead', 'failed', 'done'] as const
/** Outbox states an operator may retry. */
export const RETRYABLE_STATES = ['dead', 'failed', 'unknown'] as const

/** Re-queues an inbound record (dead, failed or done) with a fresh run budget; the bot's sweeper processes it again. */
export async function replayInbound(journal: Journal, id: string, change: OperatorChange = {}): Promise<InboxRecord> {
  const [found] = await journal.read('inbox', [id])
  if (!found) throw new RecordNotFoundError('inbox', id)
  const { record } = found
  if (!(REPLAYABLE_STATES as readonly string[]).includes(record.state))
    throw new InvalidStateError('inbox', id, record.state, REPLAYABLE_STATES)
  const at = change.at ?? Date.now()
  const next: InboxRecord = {
    ...record,
    state: 'pending',
    attempts: 0,
    nextAttemptAt: at,
    lease: null,
    // It runs when the operator asks, after what its chat has admitted by then: not in its old place.
    seq: at * SEQ_PER_MS,
    updatedAt: at,
    audit: withAudit(record.audit, 'replay', change, at),
  }
  await casOrExplain(journal, 'operator.replay', 'inbox', id, next, found.version)
  return next
}

/**
 * Re-queues a send (dead, failed or unknown) with a fresh retry budget; later parts that died with it
 * are re-queued too, so the whole text goes out in order.
 */
export async function retrySend(journal: Journal, key: string, change: OperatorChange = {}): Promise<OutboxRecord[]> {
  const [found] = await journal.read('outbox', [key])
  if (!found) throw new RecordNotFoundError('outbox', key)
  if (!(RETRYABLE_STATES as readonly string[]).includes(found.record.state)) {
    throw new InvalidStateError('outbox', key, found.record.state, RETRYABLE_STATES)
  }
  const at = change.at ?? Date.now()
  const retried: OutboxRecord[] = []
  let current: typeof found | undefined = found
  while (current) {
    const next: OutboxRecord = {
      ...current.record,
      state: 'pending',
      attempts: 0,
      nextAttemptAt: at,
      lease: null,
      updatedAt: at,
      audit: withAudit(current.record.audit, 'retry', change, at),
    }
    await casOrExplain(journal, 'operator.retry', 'outbox', current.record.key, next, current.version)
    retried.push(next)
    const following: string | null | undefined = current.record.nextPart
    current = undefined
    if (following) {
      const [part]: (typeof found | undefined)[] = await journal.read('outbox', [following])
      if (part?.record.state === 'dead' && part.record.lastError?.code === ERROR_CODES.PREVIOUS_PART_DEAD) current = part
    }
  }
  return retried
}

/** Forgets a send (deletes its record). A send in flight with a live lease is refused. */
export async function discardSend(journal: Journal, key: string, now: number = Date.now()): Promise<OutboxRecord> {
  const [found] = await journal.read('outbox', [key])
  if (!found) throw new RecordNotFoundError('outbox', key)
  const lease = found.record.lease
  if (found.record.state === 'sending' && lease && lease.expiresAt > now) {
    throw new InvalidStateError('outbox', key, `sending (leased to ${lease.owner})`, ['not in flight'])
  }
  const [result] = await journal.write('operator.discard', [{ kind: 'outbox', delete: key, expectVersion: found.version }])
  if (!result!.ok) throw new ConcurrentChangeError('outbox', key)
  return found.record
}

/** A record changed between reading it and writing it (a running bot got there first). */
export class ConcurrentChangeError extends RecordStateError {
  constructor(kind: string, id: string) {
    super(
      ERROR_CODES.CONCURRENT_CHANGE,
      `the ${kind} record "${id}" changed while it was being updated; nothing was overwritten, try again`,
      { retryable: true },
    )
  }
}

async function casOrExplain(
  journal: Journal,
  name: 'operator.replay' | 'operator.retry',
  kind: 'inbox' | 'outbox',
  id: string,
  record: InboxRecord | OutboxRecord,
  version: number,
): Promise<void> {
  const [result] = await journal.write(name, [{ kind, record, expectVersion: version } as never])
  if (!result!.ok) throw new ConcurrentChangeError(kind, id)
}

function withAudit(audit: AuditEntry[] | undefined, action: string, change: OperatorChange, at: number): AuditEntry[] {
  const entry: AuditEntry = { action, by: change.by ?? defaultOperator(), at, ...(change.reason ? { reason: change.reason } : {}) }
  // Bounded: the last 20 actions are plenty to explain a record's history.
  return [...(audit ?? []), entry].slice(-20)
}

function defaultOperator(): string {
  try {
    return `${userInfo().username}@${hostname()}`
  } catch {
    return `pid ${process.pid}@${hostname()}`
  }
}
