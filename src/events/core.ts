/**
 * What the two journals have in common underneath: a `KvState` in memory that holds the file's
 * records and side entries, and one way to change it. A *plan* reads the state and says which
 * compare-and-set ops to apply; the core applies them atomically with that read (nothing else
 * changes the state in between) and commits them before the caller sees the result.
 * `FileEventJournal` commits through FileDurability's `DurableState` (snapshot rewrite, group
 * commit); `SharedFileEventJournal` rereads the file under a cross-process mutex first.
 */
import type { KvEntry, KvWriteResult } from '../core/durability/journal/kv.js'
import type { KvState } from '../core/durability/memory/kv-state.js'
import type { PlacedOp } from '../crash-safe-file/pending-writes.js'
import { EVENTS_COLLECTION, laneKey, laneOfKey, recordOf, type EventLane, type EventRecord } from './record.js'

/** The ops a plan wants applied, and how to turn their results into the caller's answer. */
export interface PlanStep<T> {
  ops: PlacedOp[]
  /** Called with one result per op once they are committed (may throw: the caller's error). */
  result(results: KvWriteResult[]): T
}

/** A step whose answer is known before it is written: `answer`, once every op applied (`what` names it in the error). */
export function answeredStep<T>(ops: PlacedOp[], what: string, answer: T): PlanStep<T> {
  return {
    ops,
    result(results) {
      assertApplied(results, what)
      return answer
    },
  }
}

/** Reads the state and decides what to change. Must not await, and must not change `state` itself. */
export type Plan<T> = (state: KvState) => PlanStep<T>

/** How a journal applies plans and reads its state. */
export interface JournalCore {
  /** The journal file. */
  readonly path: string
  readonly closed: boolean
  /** The clock leases are judged by. */
  now(): number
  /** Applies the plan's ops atomically with its read, commits them, and answers. `deferred`: lease heartbeats (see `EventStorage.write`). */
  run<T>(plan: Plan<T>, options?: { deferred?: boolean }): Promise<T>
  /** Answers from the current state (once the writes it sees are committed). */
  read<T>(read: (state: KvState) => T): Promise<T>
  /** Resolves once every write made so far is committed or failed. */
  flush(): Promise<void>
  close(): Promise<void>
}

/** The lanes that hold records, and their state scopes. */
export function lanesIn(state: KvState): { key: string; lane: EventLane }[] {
  const lanes: { key: string; lane: EventLane }[] = []
  for (const key of state.scopes()) {
    const lane = laneOfKey(key)
    if (lane) lanes.push({ key, lane })
  }
  return lanes
}

/** Whether a lane is one a query's channel and scope select (undefined selects any). */
export function laneMatches(lane: EventLane, query: { channel?: string | null; scope?: string | null }): boolean {
  return (query.channel === undefined || query.channel === lane.channel) && (query.scope === undefined || query.scope === lane.scope)
}

/** The entry of a record, in whichever lane it is (ids are unique in the journal). */
export function findEntry(state: KvState, id: string): { key: string; entry: KvEntry } | undefined {
  for (const { key } of lanesIn(state)) {
    const entry = state.get(key, EVENTS_COLLECTION, id)
    if (entry) return { key, entry }
  }
  return undefined
}

/** The record of a lane by id. */
export function recordIn(state: KvState, lane: EventLane, id: string): EventRecord | undefined {
  const entry = state.get(laneKey(lane), EVENTS_COLLECTION, id)
  return entry ? recordOf(entry) : undefined
}

/** Checks that ops the plan computed from the state it read were applied; anything else is a bug. */
export function assertApplied(results: readonly KvWriteResult[], what: string): void {
  if (results.some((result) => !result.ok))
    throw new Error(`${what}: a compare-and-set computed from the state it read did not apply (a bug)`)
}
