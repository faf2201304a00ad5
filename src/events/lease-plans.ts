/**
 * The lease verbs as plans: claim, heartbeat, complete and fail. Fencing is checked here, in the
 * same atomic step as the change: a completion under a token that no longer holds the lease
 * changes nothing and is refused.
 */
import { ConfigError, LeaseLostError } from '../core/errors/errors.js'
import type { PlacedOp } from '../crash-safe-file/pending-writes.js'
import { answeredStep, assertApplied, findEntry, type Plan } from './core.js'
import { claimRun, runsSpent, unfinishedRunsError } from '../core/durability/leases/charged-runs.js'
import { EVENTS_LIMITS } from './limits.js'
import type { ClaimOptions, ClaimRef, FailOptions } from './journal.js'
import { EVENTS_COLLECTION, laneKey, recordOf, type EventError, type EventRecord } from './record.js'
import { putRecordOp } from './record-ops.js'

export function claimPlan(options: ClaimOptions, now: number): Plan<EventRecord[]> {
  const limit = options.limit ?? 1
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > EVENTS_LIMITS.claimBatchMax) {
    throw new ConfigError(`claim: limit must be an integer from 1 to ${EVENTS_LIMITS.claimBatchMax}`)
  }
  if (!(options.leaseMs > 0)) throw new ConfigError('claim: leaseMs must be a positive number of ms')
  const lane = { channel: options.channel ?? null, scope: options.scope ?? null }
  return (state) => {
    const ops: PlacedOp[] = []
    const claimed: EventRecord[] = []
    for (const entry of state.due(laneKey(lane), EVENTS_COLLECTION, now, limit)) {
      const record = recordOf(entry)
      if (record.state === 'processing' && record.lease && record.lease.expiresAt > now) continue
      if (options.maxAttempts !== undefined && runsSpent(record.attempts, options.maxAttempts)) {
        const lastError = record.lastError ?? unfinishedRunsError(record.attempts, 'worker', now)
        ops.push(putRecordOp({ ...record, state: 'dead', lease: null, availableAt: null, lastError, updatedAt: now }, entry.version))
        continue
      }
      const lease = (token: number) => ({
        owner: options.owner,
        token,
        expiresAt: now + options.leaseMs,
        acquiredAt: now,
        ...(options.incarnation ? { incarnation: options.incarnation } : {}),
      })
      const next = { ...claimRun(record, lease), availableAt: null, updatedAt: now }
      ops.push(putRecordOp(next, entry.version))
      claimed.push({ ...next, version: entry.version + 1 })
    }
    return answeredStep(ops, 'claim', claimed)
  }
}

/** Whether `claim` still holds its record's lease. */
function holds(record: EventRecord | undefined, claim: ClaimRef): record is EventRecord {
  return record?.state === 'processing' && record.lease?.token === claim.token
}

export function heartbeatPlan(claims: readonly ClaimRef[], leaseMs: number, now: number): Plan<boolean[]> {
  return (state) => {
    const ops: PlacedOp[] = []
    const held = claims.map((claim) => {
      const found = findEntry(state, claim.id)
      const record = found && recordOf(found.entry)
      if (!holds(record, claim)) return false
      ops.push(putRecordOp({ ...record, lease: { ...record.lease!, expiresAt: now + leaseMs } }, found!.entry.version))
      return true
    })
    return { ops, result: () => held }
  }
}

/** Finishes a claimed record (done, failed or dead) if the claim still holds it. */
export function finishPlan(claim: ClaimRef, now: number, finish: (record: EventRecord) => Omit<EventRecord, 'version'>): Plan<EventRecord> {
  return (state) => {
    const found = findEntry(state, claim.id)
    const record = found && recordOf(found.entry)
    if (!holds(record, claim)) {
      return {
        ops: [],
        result: () => {
          throw new LeaseLostError('event', claim.id, claim.token)
        },
      }
    }
    const next = { ...finish(record), updatedAt: now }
    return {
      ops: [putRecordOp(next, found!.entry.version)],
      result: (results) => {
        assertApplied(results, 'complete')
        return { ...next, version: (results[0] as { version: number }).version }
      },
    }
  }
}

export function completePlan(claim: ClaimRef, now: number): Plan<EventRecord> {
  return finishPlan(claim, now, (record) => ({ ...record, state: 'done', lease: null, availableAt: null }))
}

export function failPlan(claim: ClaimRef, error: unknown, options: FailOptions, now: number): Plan<EventRecord> {
  const lastError = errorOf(error, now)
  return finishPlan(claim, now, (record) =>
    options.dead
      ? { ...record, state: 'dead', lease: null, availableAt: null, lastError }
      : { ...record, state: 'failed', lease: null, availableAt: options.retryAt ?? now, lastError },
  )
}

/** An error as journaled. */
export function errorOf(error: unknown, at: number): EventError {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code
    return { message: error.message, name: error.name, ...(typeof code === 'string' ? { code } : {}), at }
  }
  return { message: String(error), at }
}
