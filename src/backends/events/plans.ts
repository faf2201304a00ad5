/**
 * The journal's verbs as plans (see core.ts): each reads the state and says what to change, so
 * the same code runs over a single-process journal and a shared one. Fencing is checked here, in
 * the same atomic step as the change: a completion under a token that no longer holds the lease
 * changes nothing and is refused.
 */
import { randomUUID } from 'node:crypto'
import type { KvWriteResult, KvState } from '../../core/spi.js'
import { ConfigError, LeaseLostError } from '../../core/errors.js'
import type { PlacedOp } from '../crash-safe-file/pending-writes.js'
import { assertApplied, findEntry, laneMatches, lanesIn, type Plan } from './core.js'
import { runsSpent, unfinishedRunsError } from './charged-runs.js'
import { EVENTS_LIMITS } from './limits.js'
import type { AppendInput, AppendResult, ClaimOptions, ClaimRef, EventListQuery, EventPurgeQuery, FailOptions, ReplayQuery } from './journal.js'
import {
  dueOf,
  EVENT_STATES,
  EVENTS_COLLECTION,
  laneKey,
  META,
  recordOf,
  REPLAYABLE_EVENT_STATES,
  valueOf,
  type EventError,
  type EventRecord,
  type EventState,
} from './record.js'

/** The channel of the bot's inbound records (eventsDurability): no app event may use it. */
export const DURABLE_CHANNEL = 'botwa:durable'
/** Ids of the bot's records start with this; no app event may. */
export const DURABLE_ID_PREFIX = 'botwa:'

/** The op that stores `record` (its version aside) in its lane, if it is still at `expectVersion`. */
export function putRecordOp(record: Omit<EventRecord, 'version'>, expectVersion: number): PlacedOp {
  return {
    scope: laneKey(record),
    op: {
      op: 'put',
      collection: EVENTS_COLLECTION,
      key: record.id,
      expectVersion,
      value: valueOf(record),
      state: record.state,
      stateTime: record.updatedAt,
      due: dueOf(record),
    },
  }
}

/** The next append sequence, and the op that moves the counter past `count` more. */
export function takeSeqs(state: KvState, count: number): { first: number; op: PlacedOp } {
  const entry = state.get(META.scope, META.collection, META.seqKey)
  const first = (entry?.value as { next?: number } | undefined)?.next ?? 1
  return {
    first,
    op: {
      scope: META.scope,
      op: { op: 'put', collection: META.collection, key: META.seqKey, expectVersion: entry?.version ?? 0, value: { next: first + count }, state: 'meta', stateTime: 0, due: null },
    },
  }
}

export function appendPlan(inputs: readonly AppendInput[], now: number): Plan<AppendResult[]> {
  const checked = inputs.map(checkAppendInput)
  return (state) => {
    const answers: AppendResult[] = []
    const fresh = new Map<string, EventRecord>()
    const seqs = takeSeqs(state, checked.length)
    const ops: PlacedOp[] = []
    for (const input of checked) {
      const id = input.id ?? randomUUID()
      const stored = fresh.has(id) ? undefined : findEntry(state, id)
      const existing = fresh.get(id) ?? (stored && recordOf(stored.entry))
      if (existing) {
        answers.push({ appended: false, record: existing })
        continue
      }
      const record: EventRecord = {
        id,
        seq: seqs.first + fresh.size,
        channel: input.channel ?? null,
        scope: input.scope ?? null,
        eventType: input.eventType,
        payload: input.payload ?? null,
        state: 'pending',
        attempts: 0,
        availableAt: input.availableAt ?? null,
        lease: null,
        fencingToken: 0,
        lastError: null,
        createdAt: now,
        updatedAt: now,
        version: 1,
      }
      fresh.set(id, record)
      ops.push(putRecordOp(record, 0))
      answers.push({ appended: true, record })
    }
    if (fresh.size > 0) ops.push(seqs.op)
    return {
      ops,
      result(results) {
        assertApplied(results, 'append')
        return answers.map((answer) => ({ appended: answer.appended, record: structuredClone(answer.record) }))
      },
    }
  }
}

function checkAppendInput(input: AppendInput): AppendInput {
  if (typeof input?.eventType !== 'string' || input.eventType === '') throw new ConfigError('append: eventType must be a non-empty string')
  if (input.id !== undefined && (typeof input.id !== 'string' || input.id === '')) throw new ConfigError('append: id must be a non-empty string')
  if (input.channel !== undefined && input.channel !== null && (typeof input.channel !== 'string' || input.channel === '')) {
    throw new ConfigError('append: channel must be a non-empty string or null')
  }
  if (input.scope !== undefined && input.scope !== null && (typeof input.scope !== 'string' || input.scope === '')) {
    throw new ConfigError('append: scope must be a non-empty string or null')
  }
  if (input.channel === DURABLE_CHANNEL || input.id?.startsWith(DURABLE_ID_PREFIX)) {
    throw new ConfigError(`append: the channel "${DURABLE_CHANNEL}" and ids starting with "${DURABLE_ID_PREFIX}" belong to the bot (eventsDurability)`)
  }
  return input
}

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
        const lastError = record.lastError ?? unfinishedRunsError(record.attempts, now)
        ops.push(putRecordOp({ ...record, state: 'dead', lease: null, availableAt: null, lastError, updatedAt: now }, entry.version))
        continue
      }
      const token = record.fencingToken + 1
      const lease = { owner: options.owner, token, expiresAt: now + options.leaseMs, acquiredAt: now, ...(options.incarnation ? { incarnation: options.incarnation } : {}) }
      const next = { ...record, state: 'processing' as const, attempts: record.attempts + 1, lease, fencingToken: token, availableAt: null, updatedAt: now }
      ops.push(putRecordOp(next, entry.version))
      claimed.push({ ...next, version: entry.version + 1 })
    }
    return {
      ops,
      result(results) {
        assertApplied(results, 'claim')
        return claimed
      },
    }
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

export function replayPlan(query: ReplayQuery, now: number): Plan<EventRecord[]> {
  const states = (query.states ?? REPLAYABLE_EVENT_STATES).filter((state) => (REPLAYABLE_EVENT_STATES as readonly string[]).includes(state))
  const limit = query.limit ?? EVENTS_LIMITS.replayBatchMax
  return (state) => {
    const candidates = query.ids
      ? query.ids.flatMap((id) => {
          const found = findEntry(state, id)
          return found ? [recordOf(found.entry)] : []
        })
      : listRecords(state, { channel: query.channel, scope: query.scope, eventType: query.eventType, limit: Number.MAX_SAFE_INTEGER }, states)
    const ops: PlacedOp[] = []
    const replayed: EventRecord[] = []
    for (const record of candidates) {
      if (replayed.length >= limit) break
      if (!states.includes(record.state)) continue
      if (query.ids && !laneMatches(record, query)) continue
      const next = { ...record, state: 'pending' as const, attempts: 0, availableAt: now, lease: null, updatedAt: now }
      ops.push(putRecordOp(next, record.version))
      replayed.push({ ...next, version: record.version + 1 })
    }
    return {
      ops,
      result(results) {
        assertApplied(results, 'replay')
        return replayed
      },
    }
  }
}

/** Records of the lanes a query selects, filtered, in append order. */
export function listRecords(state: KvState, query: EventListQuery, states: readonly EventState[] = query.state ? [query.state] : EVENT_STATES): EventRecord[] {
  const limit = query.limit ?? EVENTS_LIMITS.listPageDefault
  const found: EventRecord[] = []
  for (const { key, lane } of lanesIn(state)) {
    if (!laneMatches(lane, query)) continue
    for (const name of states) {
      for (const entry of state.list(key, EVENTS_COLLECTION, { state: name, limit: Number.MAX_SAFE_INTEGER })) {
        const value = entry.value as unknown as EventRecord
        if (query.eventType !== undefined && value.eventType !== query.eventType) continue
        if (query.afterSeq !== undefined && value.seq <= query.afterSeq) continue
        found.push(recordOf(entry))
      }
    }
  }
  return found.sort((a, b) => a.seq - b.seq).slice(0, limit)
}

export function countRecords(state: KvState, query: { channel?: string | null; scope?: string | null }): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const { key, lane } of lanesIn(state)) {
    if (!laneMatches(lane, query)) continue
    for (const [name, n] of Object.entries(state.count(key, EVENTS_COLLECTION))) counts[name] = (counts[name] ?? 0) + n
  }
  return counts
}

export function purgePlan(query: EventPurgeQuery): Plan<number> {
  const limit = query.limit ?? EVENTS_LIMITS.purgeBatchMax
  const states = query.states ?? ['done']
  return (state) => {
    const ops: PlacedOp[] = []
    for (const { key, lane } of lanesIn(state)) {
      if (!laneMatches(lane, query)) continue
      for (const name of states) {
        for (const entry of state.list(key, EVENTS_COLLECTION, { state: name, before: query.olderThan, limit: limit - ops.length })) {
          ops.push({ scope: key, op: { op: 'delete', collection: EVENTS_COLLECTION, key: entry.key, expectVersion: entry.version } })
        }
      }
    }
    return { ops, result: (results: KvWriteResult[]) => results.filter((result) => result.ok).length }
  }
}

