/**
 * The rows the journal's statements return, read back: an entry, or the result of a
 * compare-and-set. A CAS that loses returns the current entry from the same statement; when that
 * statement's snapshot cannot tell (the winner committed after it began), the result is UNSURE and
 * the caller reads again.
 */
import type { KvEntry, KvOp, KvWriteResult } from '../../core/spi.js'

/** A row of an entry as the statements return it. */
export interface EntryRow {
  key?: string
  ok?: boolean
  version: string
  value: string | null
  state: string | null
  state_time: number | null
  due: number | null
}

/** A write's result, or UNSURE when its statement's snapshot could not show the winner. */
export const UNSURE = Symbol('unsure')
export type Outcome = KvWriteResult | typeof UNSURE

/** Reads the row a write statement returned. */
export function outcome(op: KvOp, row: EntryRow | undefined): Outcome {
  if (row?.ok) return { ok: true, version: Number(row.version) }
  if (op.op === 'put' && op.expectVersion === 0) return row ? { ok: false, current: toEntry(op.key, row) } : UNSURE
  if (!row) return { ok: false, current: undefined }
  // The snapshot still shows the expected version: the winner committed while we waited on its lock.
  return Number(row.version) === op.expectVersion ? UNSURE : { ok: false, current: toEntry(op.key, row) }
}

/** The entry a row holds, under `key` (the caller knows it; not every row returns it). */
export function toEntry(key: string, row: EntryRow): KvEntry {
  return {
    key,
    version: Number(row.version),
    value: JSON.parse(row.value!),
    state: row.state!,
    stateTime: row.state_time!,
    due: row.due,
  }
}
