/**
 * The journal's statements (statements.ts) for one table prefix, each prepared under a name that is
 * a hash of its text: every connection parses a statement once, and two stores with the same
 * tables share the name instead of clashing on it.
 */
import { createHash } from 'node:crypto'
import * as sql from './statements.js'
import { WRITE_BATCH } from './batch-statement.js'
import type { DurableTables } from './tables.js'

/** A statement with the name it is prepared under on each connection. */
export interface Prepared {
  name: string
  text: string
}

/** The statements of one table prefix, prepared by name so each connection parses them once. */
export type Statements = Record<Exclude<keyof typeof sql, 'SELECT_NOW'>, Prepared> & { SELECT_NOW: Prepared; WRITE_BATCH: Prepared }

/** A statement named after a hash of its text: one name per distinct text, on any connection. */
export function named(text: string): Prepared {
  return { name: `botmesh_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`, text }
}

/** Names every statement after a hash of its text: one name per distinct text, on any connection. */
export function prepare(tables: DurableTables): Statements {
  return {
    INSERT_ENTRY: named(sql.INSERT_ENTRY(tables)),
    UPDATE_ENTRY: named(sql.UPDATE_ENTRY(tables)),
    DELETE_ENTRY: named(sql.DELETE_ENTRY(tables)),
    SELECT_ENTRIES: named(sql.SELECT_ENTRIES(tables)),
    SELECT_DUE: named(sql.SELECT_DUE(tables)),
    LIST_FIRST: named(sql.LIST_FIRST(tables)),
    LIST_AFTER: named(sql.LIST_AFTER(tables)),
    LIST_SEARCH: named(sql.LIST_SEARCH(tables)),
    COUNT_STATES: named(sql.COUNT_STATES(tables)),
    PURGE_STATE: named(sql.PURGE_STATE(tables)),
    COUNT_OLDER: named(sql.COUNT_OLDER(tables)),
    SELECT_SCOPES: named(sql.SELECT_SCOPES(tables)),
    SELECT_NOW: named(sql.SELECT_NOW),
    WRITE_BATCH: named(WRITE_BATCH(tables)),
  }
}
