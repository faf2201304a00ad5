/**
 * Whether a table prefix holds a journal, for an open that must not create one (`mustExist`, the
 * CLI's reads): a mistyped `tablePrefix` would otherwise create a fresh, empty journal and report
 * it as "no dead letters".
 */
import { JournalMissingError } from '../../core/errors/errors.js'
import { describeNearest } from '../common/nearest.js'
import type { PostgresConnection } from './connection.js'
import type { DurableTables } from './tables.js'

/** Journal tables read at most to list the nearest prefixes (a bound on one catalog query). */
export const JOURNAL_CANDIDATES_MAX = 1_000

/**
 * What is there. $1 the durable table (quoted), $2 the counts table of older versions (quoted).
 * Returns one row (durable, legacy_counts) of booleans.
 */
const SELECT_PRESENCE = `SELECT to_regclass($1::text) IS NOT NULL AS durable, to_regclass($2::text) IS NOT NULL AS legacy_counts`

/**
 * The tables of the current schema that look like a journal (`<prefix>durable`), for the message.
 * $1 the most to list. Returns (name) rows in order.
 */
const SELECT_JOURNAL_TABLES = `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND c.relname LIKE '%durable'
ORDER BY 1 LIMIT $1::integer`

/** What `findJournal` saw. */
export interface JournalPresence {
  /** `{prefix}durable` exists. */
  durable: boolean
  /** The counts table (with its function and triggers) of versions before one-table counting exists. */
  legacyCounts: boolean
}

/** Looks for the journal's table. Needs an acquired connection. */
export async function findJournal(
  connection: PostgresConnection,
  tables: DurableTables,
  legacyCountsTable: string,
): Promise<JournalPresence> {
  const { rows } = await connection.query<{ durable: boolean; legacy_counts: boolean }>({
    text: SELECT_PRESENCE,
    values: [tables.durable, legacyCountsTable],
  })
  return { durable: rows[0]!.durable, legacyCounts: rows[0]!.legacy_counts }
}

/** The refusal of a prefix without a journal, naming the table looked for and the prefixes that have one. */
export async function journalMissing(connection: PostgresConnection, tables: DurableTables): Promise<JournalMissingError> {
  const { rows } = await connection.query<{ name: string }>({ text: SELECT_JOURNAL_TABLES, values: [JOURNAL_CANDIDATES_MAX] })
  const listed = describeNearest(
    tables.prefix,
    rows.map((row) => row.name.slice(0, -'durable'.length)),
  )
  return new JournalMissingError(
    `the table ${tables.durable} (tablePrefix "${tables.prefix}") on ${connection.target}`,
    `does not exist, so there is no journal there; table prefixes with a journal in this schema, nearest first: ${listed}. Check ?tablePrefix= and the database`,
  )
}
