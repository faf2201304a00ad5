/**
 * One `DurableKv` op as one SQL statement: an insert-if-absent, an update-if-version or a
 * delete-if-version. The statement that compares the version is the statement that writes, so no
 * other writer (thread, process) can slip in between the check and the change. Only when the
 * statement changed nothing is the current entry read, to tell the caller what won.
 */
import { JournalCorruptError } from '../../core/errors/errors.js'
import type { Json, KvEntry, KvOp, KvWriteResult } from '../../core/spi.js'
import type { DurableStatements, EntryRow } from './statements.js'
import { checkKvOp } from '../common/kv-op-check.js'

/** An op checked and with its value already JSON text, ready to bind (encoding stays out of the transaction). */
export type EncodedOp =
  | {
      op: 'put'
      collection: string
      key: string
      expectVersion: number
      value: string
      state: string
      stateTime: number
      due: number | null
    }
  | { op: 'delete'; collection: string; key: string; expectVersion: number }

/** Checks an op and encodes its value; throws a RangeError for an op no backend could store. */
export function encodeOp(op: KvOp): EncodedOp {
  checkKvOp(op)
  if (op.op === 'delete') return { op: 'delete', collection: op.collection, key: op.key, expectVersion: op.expectVersion }
  const value = JSON.stringify(op.value)
  if (value === undefined) throw new RangeError(`the value of "${op.key}" cannot be encoded as JSON`)
  return { ...op, value }
}

/** Applies one op in `scope` inside the caller's transaction. */
export function applyOp(statements: DurableStatements, file: string, scope: string, op: EncodedOp): KvWriteResult {
  const { collection, key, expectVersion } = op
  let changes: number
  if (op.op === 'delete') changes = statements.delete.run(scope, collection, key, expectVersion).changes
  else if (expectVersion === 0) changes = statements.insert.run(scope, collection, key, op.value, op.state, op.stateTime, op.due).changes
  else changes = statements.update.run(op.value, op.state, op.stateTime, op.due, scope, collection, key, expectVersion).changes
  if (changes === 1) return { ok: true, version: op.op === 'delete' ? 0 : expectVersion + 1 }
  const row = statements.get.get(scope, collection, key) as EntryRow | undefined
  // Deleting what is not there, expecting it not to be there: done (as the in-memory reference does).
  if (row === undefined && op.op === 'delete' && expectVersion === 0) return { ok: true, version: 0 }
  return { ok: false, current: row === undefined ? undefined : decodeEntry(row, file, collection) }
}

/** The entry a row holds. */
export function decodeEntry(row: EntryRow, file: string, collection: string): KvEntry {
  let value: Json
  try {
    value = JSON.parse(row.value) as Json
  } catch {
    throw new JournalCorruptError(file, `the ${collection} entry "${row.key}" holds a value that is not JSON`)
  }
  return { key: row.key, version: row.version, value, state: row.state, stateTime: row.state_time, due: row.due }
}
