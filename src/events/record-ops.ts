/**
 * The two writes every plan is made of: a record put in its lane (compare-and-set on its version),
 * and the append counter moved on. Kept apart from the verbs so the sidecar storage (storage.ts)
 * writes records exactly as the journal's own plans do.
 */
import type { KvState } from '../core/durability/memory/kv-state.js'
import type { PlacedOp } from '../crash-safe-file/pending-writes.js'
import { dueOf, EVENTS_COLLECTION, laneKey, META, valueOf, type EventRecord } from './record.js'

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
      op: {
        op: 'put',
        collection: META.collection,
        key: META.seqKey,
        expectVersion: entry?.version ?? 0,
        value: { next: first + count },
        state: 'meta',
        stateTime: 0,
        due: null,
      },
    },
  }
}
