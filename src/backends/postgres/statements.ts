/**
 * Every statement `PostgresKv` runs on the journal, one operation each. Each one is a single
 * statement, so it is atomic on its own (autocommit) and one round trip; each transition is
 * conditional on the version inside the statement that mutates, so two writers can never both
 * win. The per-state counts are kept by the trigger of schema.ts, in the same transaction.
 *
 * Entry rows come back as (ok, version, value, state, state_time, due) or (key, version, value,
 * state, state_time, due); `version` is a bigint (a string in pg), `value` the JSON text.
 *
 * In a write statement every parameter carries a cast, and `$` appears only as a parameter
 * marker, so literal.ts can inline the values to send several writes in one message.
 */
import type { DurableTables } from './tables.js'

/** The columns of an entry, in the order rows carry them. */
const ENTRY_COLUMNS = 'version, value, state, state_time, due'

/** Rows of a CAS that lost: the entry as the statement saw it, unless the write happened. */
function currentUnless(t: DurableTables, cte: string): string {
  return `SELECT false AS ok, ${ENTRY_COLUMNS} FROM ${t.durable}
WHERE scope = $1::text AND collection = $2::text AND key = $3::text AND NOT EXISTS (SELECT FROM ${cte})`
}

/** What a CAS that won returns: only its new version. */
const WON = 'SELECT true AS ok, version, NULL::text AS value, NULL::text AS state, NULL::float8 AS state_time, NULL::float8 AS due'

/**
 * Inserts an entry that must not exist (expectVersion 0).
 * $1 scope, $2 collection, $3 key, $4 value (JSON text), $5 state, $6 state_time, $7 due (or null).
 * Returns one row: (true, 1, nulls) when inserted; (false, the entry) when the key exists; no row
 * when the key was inserted by a transaction that committed after this statement's snapshot.
 */
export const INSERT_ENTRY = (t: DurableTables) => `WITH inserted AS (
  INSERT INTO ${t.durable} (scope, collection, key, version, value, state, state_time, due)
  VALUES ($1::text, $2::text, $3::text, 1, $4::text, $5::text, $6::float8, $7::float8)
  ON CONFLICT (scope, collection, key) DO NOTHING
  RETURNING version
)
${WON} FROM inserted
UNION ALL
${currentUnless(t, 'inserted')}`

/**
 * Replaces an entry whose version is still $4, bumping the version.
 * $1 scope, $2 collection, $3 key, $4 expected version, $5 value, $6 state, $7 state_time, $8 due.
 * Returns one row: (true, $4 + 1, nulls) when replaced; (false, the entry) when the version
 * differs; no row when there is no such entry. The entry of a losing row is read from the
 * statement's snapshot, so it may show version $4 when the winner committed meanwhile.
 */
export const UPDATE_ENTRY = (t: DurableTables) => `WITH updated AS (
  UPDATE ${t.durable}
  SET version = version + 1, value = $5::text, state = $6::text, state_time = $7::float8, due = $8::float8
  WHERE scope = $1::text AND collection = $2::text AND key = $3::text AND version = $4::bigint
  RETURNING version
)
${WON} FROM updated
UNION ALL
${currentUnless(t, 'updated')}`

/**
 * Deletes an entry whose version is still $4.
 * $1 scope, $2 collection, $3 key, $4 expected version.
 * Returns one row: (true, 0, nulls) when deleted; (false, the entry) when the version differs;
 * no row when there is no such entry (same snapshot caveat as UPDATE_ENTRY).
 */
export const DELETE_ENTRY = (t: DurableTables) => `WITH deleted AS (
  DELETE FROM ${t.durable}
  WHERE scope = $1::text AND collection = $2::text AND key = $3::text AND version = $4::bigint
  RETURNING 0::bigint AS version
)
${WON} FROM deleted
UNION ALL
${currentUnless(t, 'deleted')}`

/**
 * Reads entries by key.
 * $1 scope, $2 collection, $3 keys (text[]).
 * Returns (key, version, value, state, state_time, due) for each key that exists, in no order.
 */
export const SELECT_ENTRIES = (t: DurableTables) => `SELECT key, ${ENTRY_COLUMNS} FROM ${t.durable}
WHERE scope = $1::text AND collection = $2::text AND key = ANY($3::text[])`

/**
 * The due index: entries due at or before $3, soonest first (ties by key).
 * $1 scope, $2 collection, $3 until (ms), $4 limit.
 * Returns (key, version, value, state, state_time, due) rows.
 */
export const SELECT_DUE = (t: DurableTables) => `SELECT key, ${ENTRY_COLUMNS} FROM ${t.durable}
WHERE scope = $1::text AND collection = $2::text AND due IS NOT NULL AND due <= $3::float8
ORDER BY due, key
LIMIT $4::integer`

/**
 * The first page of a state in (state_time, key) order, before a time.
 * $1 scope, $2 collection, $3 state, $4 before (ms, exclusive; 'Infinity' for no bound), $5 limit.
 * Returns (key, version, value, state, state_time, due) rows.
 */
export const LIST_FIRST = (t: DurableTables) => `SELECT key, ${ENTRY_COLUMNS} FROM ${t.durable}
WHERE scope = $1::text AND collection = $2::text AND state = $3::text AND state_time < $4::float8
ORDER BY state_time, key
LIMIT $5::integer`

/**
 * A later page of a state: entries after the cursor ($4, $5), before a time.
 * $1 scope, $2 collection, $3 state, $4 cursor state_time, $5 cursor key, $6 before, $7 limit.
 * Returns (key, version, value, state, state_time, due) rows.
 */
export const LIST_AFTER = (t: DurableTables) => `SELECT key, ${ENTRY_COLUMNS} FROM ${t.durable}
WHERE scope = $1::text AND collection = $2::text AND state = $3::text
  AND (state_time, key) > ($4::float8, $5::text) AND state_time < $6::float8
ORDER BY state_time, key
LIMIT $7::integer`

/**
 * Entries per state, from the counts table (a few rows per state, whatever the journal holds).
 * $1 scope, $2 collection.
 * Returns (state, entries) for each state holding entries; `entries` is a numeric (a string in pg).
 */
export const COUNT_STATES = (t: DurableTables) => `SELECT state, sum(entries) AS entries FROM ${t.counts}
WHERE scope = $1::text AND collection = $2::text
GROUP BY state
HAVING sum(entries) > 0`

/**
 * Deletes up to $5 entries of state $3 older than $4, oldest first. The outer conditions are
 * checked again on the row being deleted, so an entry that changed state meanwhile is kept.
 * $1 scope, $2 collection, $3 state, $4 older than (ms, exclusive), $5 limit.
 * Returns no rows; the row count is the number deleted.
 */
export const PURGE_STATE = (t: DurableTables) => `DELETE FROM ${t.durable}
WHERE scope = $1::text AND collection = $2::text AND state = $3::text AND state_time < $4::float8
  AND key IN (
    SELECT key FROM ${t.durable}
    WHERE scope = $1::text AND collection = $2::text AND state = $3::text AND state_time < $4::float8
    ORDER BY state_time, key
    LIMIT $5::integer
  )`

/**
 * The scopes holding entries, from the counts table.
 * No parameters. Returns (scope) rows in order.
 */
export const SELECT_SCOPES = (t: DurableTables) => `SELECT scope FROM ${t.counts}
GROUP BY scope
HAVING sum(entries) > 0
ORDER BY scope`

/**
 * The server's clock: ms since the epoch, whole (like Date.now()), judged by clock_timestamp()
 * so it moves within a transaction too.
 * No parameters. Returns one row (now) as a float8.
 */
export const SELECT_NOW = `SELECT floor(extract(epoch from clock_timestamp()) * 1000)::float8 AS now`
