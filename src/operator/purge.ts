/**
 * `purge --older-than`: delete settled records whose last change is older than a cutoff, through
 * the journal's own purge (the state-time index, in batches). Only settled states may be purged:
 * a pending or leased record is work a bot still owns.
 */
import type { Journal } from '../core/durability/journal/backend.js'
import { UsageError } from './errors.js'
import type { Lane, RecordSummary, WorkKind } from './records.js'
import { summarize } from './records.js'
import { sealedUnder } from './sealed.js'
import { recordKey, type InboxRecord, type OutboxRecord } from '../core/durability/journal/records.js'

/** States that may be purged, per kind. */
export const PURGEABLE_STATES: Record<WorkKind, readonly string[]> = { inbox: ['done', 'dead'], outbox: ['sent', 'dead', 'unknown'] }
/** What retention purges; the default of `purge`. */
export const PURGE_DEFAULT_STATES: Record<WorkKind, readonly string[]> = { inbox: ['done'], outbox: ['sent'] }

export const PURGE_LIMITS = {
  /** Records one purge round trip deletes. */
  batch: 1_000,
  /** Records a plan counts per lane before it says "at least". */
  countMax: 1_000_000,
  sampleMax: 5,
} as const

/** What a purge will delete. */
export interface PurgePlan {
  olderThan: number
  lanes: (Lane & { count: number; countCapped: boolean })[]
  total: number
  sample: RecordSummary[]
  /** Records old enough that a purge keeps: their content is sealed under a key not given (never purged without it). */
  sealed: { count: number; keys: string[] }
}

/** The purge lanes for the kinds and states asked for. */
export function purgeLanes(kinds: readonly WorkKind[], states: readonly string[] | undefined): Lane[] {
  const lanes: Lane[] = []
  for (const kind of kinds) {
    for (const state of states ?? PURGE_DEFAULT_STATES[kind]) {
      if (PURGEABLE_STATES[kind].includes(state)) lanes.push({ kind, state })
      else if (states)
        throw new UsageError(
          `${kind} records in state ${state} cannot be purged (only ${PURGEABLE_STATES[kind].join(', ')}): a bot still owns that work`,
        )
    }
  }
  return lanes
}

/**
 * The exclusive cutoff for records older than `ageMs` at `now`. With 0 the cutoff is just past
 * `now`, so a record settled in this very millisecond goes too: "older than 0s" means all of them.
 */
export function purgeCutoff(now: number, ageMs: number): number {
  return ageMs === 0 ? now + 1 : now - ageMs
}

/** Counts what the purge would delete (each lane paged through the index up to a bound). */
export async function planPurge(journal: Journal, lanes: readonly Lane[], olderThan: number): Promise<PurgePlan> {
  const counted: PurgePlan['lanes'] = []
  const sample: RecordSummary[] = []
  const sealed = { count: 0, keys: new Set<string>() }
  for (const lane of lanes) {
    let count = 0
    let after: { stateTime: number; key: string } | undefined
    for (let read = 0; ;) {
      const page = await journal.list(lane.kind, { state: lane.state, before: olderThan, after, limit: PURGE_LIMITS.batch })
      for (const found of page) {
        const keyId = sealedUnder(lane.kind, found.record as InboxRecord | OutboxRecord)
        if (keyId !== undefined) {
          sealed.count++
          sealed.keys.add(keyId)
          continue
        }
        count++
        if (sample.length < PURGE_LIMITS.sampleMax) sample.push(summarize(lane.kind, found.record as InboxRecord | OutboxRecord))
      }
      read += page.length
      const last = page.at(-1)
      if (page.length < PURGE_LIMITS.batch || !last || read >= PURGE_LIMITS.countMax) break
      const record = last.record as InboxRecord | OutboxRecord
      after = { stateTime: record.updatedAt, key: recordKey(lane.kind, record) }
    }
    counted.push({ ...lane, count, countCapped: count >= PURGE_LIMITS.countMax })
  }
  const total = counted.reduce((sum, lane) => sum + lane.count, 0)
  return { olderThan, lanes: counted, total, sample, sealed: { count: sealed.count, keys: [...sealed.keys].sort() } }
}

/** Deletes, lane by lane, in batches until a batch comes back short. Resolves to what each lane lost. */
export async function applyPurge(
  journal: Journal,
  plan: PurgePlan,
  onProgress?: (deleted: number) => void,
): Promise<{ kind: WorkKind; state: string; deleted: number }[]> {
  const results: { kind: WorkKind; state: string; deleted: number }[] = []
  let total = 0
  for (const lane of plan.lanes) {
    let deleted = 0
    // Bounded: each round deletes a batch; a lane cannot hold more than the journal does.
    for (let round = 0; round < PURGE_LIMITS.countMax / PURGE_LIMITS.batch + 1; round++) {
      const n = await journal.purge(lane.kind, lane.state, plan.olderThan, PURGE_LIMITS.batch)
      deleted += n
      total += n
      onProgress?.(total)
      if (n < PURGE_LIMITS.batch) break
    }
    results.push({ kind: lane.kind, state: lane.state, deleted })
  }
  return results
}
