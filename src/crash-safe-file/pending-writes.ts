/**
 * Writes applied to the in-memory state before their commit (I4): how a write call is applied and
 * recorded, how a failed commit is rolled back (I5), and how a snapshot leaves out writes whose
 * commit has not happened yet.
 */
import type { KvEntry, KvOp, KvWriteResult, KvState } from '../core/backend-internals.js'
import type { Change } from './changes.js'
import { overlayKey, type SnapshotOverlay } from './snapshot-format.js'

/** One write call, applied in memory and waiting for its commit. */
export interface PendingWrite {
  /** What the log records for it (one record per write call). */
  changes: Change[]
  /** What each changed entry was before, to roll the write back if its commit fails. */
  undo: { scope: string; collection: string; key: string; before: KvEntry | undefined }[]
}

/** One op and the scope it applies in (a write may span scopes: the events journals' records and side entries). */
export interface PlacedOp {
  scope: string
  op: KvOp
}

/** Applies `ops` as compare-and-sets on `state`, in order; returns the results and what to commit. */
export function applyWrite(state: KvState, scope: string, ops: readonly KvOp[]): { results: KvWriteResult[]; pending: PendingWrite } {
  return applyPlacedWrite(
    state,
    ops.map((op) => ({ scope, op })),
  )
}

/** `applyWrite` for ops that each name their scope: one write call, one log record, one undo list. */
export function applyPlacedWrite(state: KvState, ops: readonly PlacedOp[]): { results: KvWriteResult[]; pending: PendingWrite } {
  const pending: PendingWrite = { changes: [], undo: [] }
  const results: KvWriteResult[] = []
  for (const { scope, op } of ops) {
    const before = state.get(scope, op.collection, op.key)
    // The state stores op.value frozen (a stored entry never changes: snapshot-format's cache relies on it).
    const result = state.apply(scope, op)
    if (!result.ok) {
      results.push(result)
      continue
    }
    pending.undo.push({ scope, collection: op.collection, key: op.key, before })
    const after = state.get(scope, op.collection, op.key)
    pending.changes.push(after ? ['put', scope, op.collection, after] : ['delete', scope, op.collection, op.key])
    results.push(result)
  }
  return { results, pending }
}

/** Undoes writes, newest first, so the state is what it was before the first of them (I5). */
export function rollBack(state: KvState, writes: readonly PendingWrite[]): void {
  for (const write of [...writes].reverse()) {
    for (const { scope, collection, key, before } of [...write.undo].reverse()) {
      if (before) state.load(scope, collection, before)
      else state.unload(scope, collection, key)
    }
  }
}

/** The entries as they were before `writes` (still queued, not committed), for a snapshot (I5). */
export function overlayOf(writes: readonly PendingWrite[]): SnapshotOverlay {
  const overlay: SnapshotOverlay = new Map()
  for (const write of writes) {
    for (const { scope, collection, key, before } of write.undo) {
      const at = overlayKey(scope, collection, key)
      if (!overlay.has(at)) overlay.set(at, before ? { scope, collection, entry: before } : null)
    }
  }
  return overlay
}
