/**
 * What FileDurability writes into its files: an entry as stored in a snapshot line, and the
 * changes of one committed write as stored in a log record. Everything read back is checked for
 * shape before it touches the state (I8, I9).
 */
import type { Json, KvEntry, KvState } from '../core/backend-internals.js'

/** One change of a committed write: the entry as it now is, or its removal. */
export type Change = ['put', scope: string, collection: string, entry: KvEntry] | ['delete', scope: string, collection: string, key: string]

/** One entry of a snapshot, where it lives. */
export interface PlacedEntry {
  scope: string
  collection: string
  entry: KvEntry
}

/** The log payload of one committed write. */
export function encodeChanges(changes: readonly Change[]): string {
  return JSON.stringify(changes)
}

/** The changes of a log payload, or what is wrong with it. */
export function decodeChanges(payload: string): Change[] | string {
  const value = parseJson(payload)
  if (!Array.isArray(value)) return 'the payload is not a list of changes'
  const changes: Change[] = []
  for (const [n, change] of value.entries()) {
    if (!Array.isArray(change) || change.length !== 4 || typeof change[1] !== 'string' || typeof change[2] !== 'string') {
      return `change ${n + 1} is not [op, scope, collection, …]`
    }
    const [op, scope, collection, body] = change as [unknown, string, string, unknown]
    if (op === 'delete') {
      if (typeof body !== 'string') return `change ${n + 1} deletes no key`
      changes.push(['delete', scope, collection, body])
    } else if (op === 'put') {
      const entry = checkEntry(body)
      if (typeof entry === 'string') return `change ${n + 1}: ${entry}`
      changes.push(['put', scope, collection, entry])
    } else {
      return `change ${n + 1} has an unknown operation`
    }
  }
  return changes
}

/** Applies replayed changes exactly (versions included), without compare-and-set. */
export function applyChanges(state: KvState, changes: readonly Change[]): void {
  for (const change of changes) {
    if (change[0] === 'put') state.load(change[1], change[2], change[3])
    else state.unload(change[1], change[2], change[3])
  }
}

/** A snapshot line's payload for one entry. */
export function encodePlacedEntry(placed: PlacedEntry): string {
  return JSON.stringify([placed.scope, placed.collection, placed.entry])
}

/** The entry of a snapshot line, or what is wrong with it. */
export function decodePlacedEntry(payload: string): PlacedEntry | string {
  const value = parseJson(payload)
  if (!Array.isArray(value) || value.length !== 3 || typeof value[0] !== 'string' || typeof value[1] !== 'string') {
    return 'not a [scope, collection, entry] line'
  }
  const entry = checkEntry(value[2])
  return typeof entry === 'string' ? entry : { scope: value[0], collection: value[1], entry }
}

/** An entry read back, checked field by field. */
function checkEntry(value: unknown): KvEntry | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'the entry is not an object'
  const entry = value as Record<string, unknown>
  if (typeof entry.key !== 'string') return 'the entry has no key'
  if (!Number.isSafeInteger(entry.version) || (entry.version as number) < 1) return `the entry "${entry.key}" has no valid version`
  if (typeof entry.state !== 'string') return `the entry "${entry.key}" has no state`
  if (typeof entry.stateTime !== 'number' || !Number.isFinite(entry.stateTime)) return `the entry "${entry.key}" has no stateTime`
  if (entry.due !== null && (typeof entry.due !== 'number' || !Number.isFinite(entry.due)))
    return `the entry "${entry.key}" has an invalid due`
  if (!('value' in entry)) return `the entry "${entry.key}" has no value`
  return {
    key: entry.key,
    version: entry.version as number,
    value: entry.value as Json,
    state: entry.state,
    stateTime: entry.stateTime,
    due: entry.due as number | null,
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
