/**
 * Every statement `PostgresKv` runs on the journal, one operation each. Each one is a single
 * statement, so it is atomic on its own (autocommit) and one round trip; each transition is
 * conditional on the version inside the statement that mutates, so two writers can never both
 * win. Each one that moves an entry between states moves its counters too, in the same statement
 * (the `counted` CTE of counters.ts).
 *
 * Entry rows come back as (ok, version, value, state, state_time, due) or (key, version, value,
 * state, state_time, due); `version` is a bigint (a string in pg), `value` the JSON text.
 *
 * In a write statement every parameter carries a cast, and `$` appears only as a parameter
 * marker, so literal.ts can inline the values to send several writes in one message.
 */
import { COUNTER_COLLECTION, countedCte, isCounterCollection } from './counters.js'
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
  RETURNING version, state
),
${countedCte(t, 'SELECT state, 1::bigint FROM inserted')}
${WON} FROM inserted
UNION ALL
${currentUnless(t, 'inserted')}`

/**
 * Replaces an entry whose version is still $4, bumping the version.
 * $1 scope, $2 collection, $3 key, $4 expected version, $5 value, $6 state, $7 state_time, $8 due.
 * Returns one row: (true, $4 + 1, nulls) when replaced; (false, the entry) when the version
 * differs; no row when there is no such entry. The entry of a losing row is read from the
 * statement's snapshot, so it may show version $4 when the winner committed meanwhile.
 *
 * The state before the update comes from joining the row to itself (`before`): RETURNING shows
 * only new values. `before` is the row of the statement's snapshot; when a concurrent writer
 * committed first, the recheck finds another version and nothing is updated, so an update that
 * happens always saw the row it replaced, and the counters move from the right state.
 */
export const UPDATE_ENTRY = (t: DurableTables) => `WITH updated AS (
  UPDATE ${t.durable} AS entry
  SET version = entry.version + 1, value = $5::text, state = $6::text, state_time = $7::float8, due = $8::float8
  FROM ${t.durable} AS before
  WHERE entry.scope = $1::text AND entry.collection = $2::text AND entry.key = $3::text AND entry.version = $4::bigint
    AND before.scope = $1::text AND before.collection = $2::text AND before.key = $3::text
  RETURNING entry.version, before.state AS state_before, entry.state
),
${countedCte(
  t,
  `SELECT moved.state, moved.delta FROM updated
  CROSS JOIN LATERAL (VALUES (updated.state_before, -1::bigint), (updated.state, 1::bigint)) AS moved (state, delta)
  WHERE updated.state_before <> updated.state`,
)}
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
  RETURNING 0::bigint AS version, state
),
${countedCte(t, 'SELECT state, -1::bigint FROM deleted')}
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
 * A search's page (kv.ts `list` with `search`): entries of a state after the cursor, before a time,
 * whose lowercased JSON text is LIKE one of the patterns (like-pattern.ts: escaped, bound as a
 * parameter, never part of the statement). The search runs here, in the database: only the
 * entries that may match come back.
 * $1 scope, $2 collection, $3 state, $4 cursor state_time, $5 cursor key, $6 before, $7 patterns, $8 limit.
 * Returns (key, version, value, state, state_time, due) rows.
 */
export const LIST_SEARCH = (t: DurableTables) => `SELECT key, ${ENTRY_COLUMNS} FROM ${t.durable}
WHERE scope = $1::text AND collection = $2::text AND state = $3::text
  AND (state_time, key) > ($4::float8, $5::text) AND state_time < $6::float8
  AND lower(value) LIKE ANY ($7::text[])
ORDER BY state_time, key
LIMIT $8::integer`

/**
 * Entries per state, from the counter rows (counters.ts: a few per state, whatever the journal
 * holds), read through the primary key.
 * $1 scope, $2 collection.
 * Returns (state, entries) for each state holding entries; `entries` is a numeric (a string in pg).
 */
export const COUNT_STATES = (t: DurableTables) => `SELECT state, sum(value::bigint) AS entries FROM ${t.durable}
WHERE scope = $1::text AND collection = ${COUNTER_COLLECTION}
GROUP BY state
HAVING sum(value::bigint) > 0`

/**
 * Deletes up to $5 entries of state $3 older than $4, oldest first, and takes them off the
 * counter. The outer conditions are checked again on the row being deleted, so an entry that
 * changed state meanwhile is kept (and not counted off).
 * $1 scope, $2 collection, $3 state, $4 older than (ms, exclusive), $5 limit.
 * Returns one row (purged): the number deleted.
 */
export const PURGE_STATE = (t: DurableTables) => `WITH deleted AS (
  DELETE FROM ${t.durable}
  WHERE scope = $1::text AND collection = $2::text AND state = $3::text AND state_time < $4::float8
    AND key IN (
      SELECT key FROM ${t.durable}
      WHERE scope = $1::text AND collection = $2::text AND state = $3::text AND state_time < $4::float8
      ORDER BY state_time, key
      LIMIT $5::integer
    )
  RETURNING state
),
${countedCte(t, 'SELECT state, -count(*) FROM deleted GROUP BY state')}
SELECT count(*)::integer AS purged FROM deleted`

/**
 * What PURGE_STATE with the same parameters would delete, counted along the state-time index.
 * $1 scope, $2 collection, $3 state, $4 older than (ms, exclusive), $5 limit.
 * Returns one row (n).
 */
export const COUNT_OLDER = (t: DurableTables) => `SELECT count(*)::integer AS n FROM (
  SELECT 1 FROM ${t.durable}
  WHERE scope = $1::text AND collection = $2::text AND state = $3::text AND state_time < $4::float8
  LIMIT $5::integer
) AS expired`

/**
 * The scopes holding entries: the distinct scopes, one primary-key probe each (a skip scan, so a
 * million entries in a few scopes cost a few probes), kept when their counters add up to more than 0.
 * No parameters. Returns (scope) rows in order.
 */
export const SELECT_SCOPES = (t: DurableTables) => `WITH RECURSIVE scopes AS (
  (SELECT scope FROM ${t.durable} ORDER BY scope LIMIT 1)
  UNION ALL
  SELECT (SELECT next.scope FROM ${t.durable} AS next WHERE next.scope > scopes.scope ORDER BY next.scope LIMIT 1)
  FROM scopes WHERE scopes.scope IS NOT NULL
)
SELECT scopes.scope FROM scopes
WHERE scopes.scope IS NOT NULL
  AND (SELECT sum(counter.value::bigint) FROM ${t.durable} AS counter
       WHERE counter.scope = scopes.scope AND ${isCounterCollection('counter.collection')}) > 0
ORDER BY scopes.scope`

/**
 * The server's clock: ms since the epoch, whole (like Date.now()), judged by clock_timestamp()
 * so it moves within a transaction too.
 * No parameters. Returns one row (now) as a float8.
 */
export const SELECT_NOW = `SELECT floor(extract(epoch from clock_timestamp()) * 1000)::float8 AS now`
