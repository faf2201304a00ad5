/**
 * The verbs that select records by lane, type and state as plans: replay, list, count and purge.
 * Each reads the state and says what to change, so the same code runs over a single-process
 * journal and a shared one (see core.ts).
 */
import type { KvWriteResult } from '../core/durability/journal/kv.js'
import type { KvState } from '../core/durability/memory/kv-state.js'
import type { PlacedOp } from '../crash-safe-file/pending-writes.js'
import { answeredStep, findEntry, laneMatches, lanesIn, type Plan } from './core.js'
import { EVENTS_LIMITS } from './limits.js'
import type { EventListQuery, EventPurgeQuery, ReplayQuery } from './journal.js'
import { EVENT_STATES, EVENTS_COLLECTION, recordOf, REPLAYABLE_EVENT_STATES, type EventRecord, type EventState } from './record.js'
import { putRecordOp } from './record-ops.js'

export function replayPlan(query: ReplayQuery, now: number): Plan<EventRecord[]> {
  const states = (query.states ?? REPLAYABLE_EVENT_STATES).filter((state) => (REPLAYABLE_EVENT_STATES as readonly string[]).includes(state))
  const limit = query.limit ?? EVENTS_LIMITS.replayBatchMax
  return (state) => {
    const candidates = query.ids
      ? query.ids.flatMap((id) => {
          const found = findEntry(state, id)
          return found ? [recordOf(found.entry)] : []
        })
      : listRecords(
          state,
          { channel: query.channel, scope: query.scope, eventType: query.eventType, limit: Number.MAX_SAFE_INTEGER },
          states,
        )
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
    return answeredStep(ops, 'replay', replayed)
  }
}

/** Records of the lanes a query selects, filtered, in append order. */
export function listRecords(
  state: KvState,
  query: EventListQuery,
  states: readonly EventState[] = query.state ? [query.state] : EVENT_STATES,
): EventRecord[] {
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
