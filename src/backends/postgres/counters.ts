/**
 * Per-state counts kept inside the journal table itself, so the backend creates one table and
 * nothing else (no counts table, function or trigger): `stats` and the dashboard read a few hundred
 * counter rows instead of counting a million entries (a `count(*) GROUP BY state` over a million
 * rows takes about a quarter of a second even as a parallel index-only scan).
 *
 * - **Where.** The counts of (scope, collection) are rows of `{prefix}durable` in the reserved
 *   collection `#count:<collection>` of the same scope: key `<state>/<shard>`, `state` the state,
 *   `value` the count as a JSON number, `due` null (never in the due index), `state_time` 0.
 *   `#` starts no collection botmesh writes (`inbox`, `outbox`, `instances`), and `checkOp`
 *   refuses the reserved prefix, so entries and counters never mix.
 * - **When.** Every statement that changes an entry's state (insert, update to another state,
 *   delete, purge) changes the counters in the same statement, as a data-modifying CTE: the
 *   count moves in the same transaction as the entry, or not at all. A write that keeps its state
 *   (a lease heartbeat) touches no counter.
 * - **Sharded.** A counter is split over `countShards` rows; each connection adds to the row of its
 *   own shard (backend pid modulo the shards), so concurrent writers rarely wait on one row lock.
 *   A shard may go negative (an entry inserted through one connection and deleted through
 *   another); only the sum per state means anything.
 * - **What it does not see.** Rows changed by hand (an operator's `DELETE` in psql) leave the
 *   counts off: the triggers that used to catch those are gone with the second table.
 */
import { POSTGRES_LIMITS } from './limits.js'
import type { DurableTables } from './tables.js'

/** Collections starting with this hold counter rows; no entry may be written to one. */
export const COUNTER_COLLECTION_PREFIX = '#count:'

/** The first text after every counter collection in "C" order (`:` + 1 is `;`): the end of their key range. */
const COUNTER_COLLECTION_END = '#count;'

/** SQL: whether `column` names a counter collection, as a range the primary key serves. */
export function isCounterCollection(column: string): string {
  return `(${column} >= '${COUNTER_COLLECTION_PREFIX}' AND ${column} < '${COUNTER_COLLECTION_END}')`
}

/** SQL: the counter collection of the statement's collection (`$2` in every statement). */
export const COUNTER_COLLECTION = `'${COUNTER_COLLECTION_PREFIX}' || $2::text`

/** SQL: this connection's shard. */
const SHARD = `(pg_backend_pid() % ${POSTGRES_LIMITS.countShards})::text`

/**
 * A CTE named `counted` that adds `deltas` to this connection's shard of each state's counter in
 * scope `$1`, collection `$2`. `deltas` is a query of (state text, delta bigint) rows, one per
 * state (two rows on one counter would make ON CONFLICT touch a row twice). States go in order,
 * so two statements lock counter rows in the same order.
 */
export function countedCte(t: DurableTables, deltas: string): string {
  return `counted AS (
  INSERT INTO ${t.durable} AS c (scope, collection, key, version, value, state, state_time, due)
  SELECT $1::text, ${COUNTER_COLLECTION}, d.state || '/' || ${SHARD}, 1, d.delta::text, d.state, 0, NULL
  FROM (${deltas}) AS d (state, delta)
  ORDER BY d.state
  ON CONFLICT (scope, collection, key) DO UPDATE SET value = (c.value::bigint + excluded.value::bigint)::text, version = c.version + 1
)`
}

/**
 * A CTE named `counted` like `countedCte`, for a statement spanning several scopes and
 * collections (WRITE_BATCH): `deltas` is a query of (scope, collection, state, delta) rows, one
 * per counter. Counters go in (scope, collection, state) order, so two batches lock them in one order.
 */
export function countedRowsCte(t: DurableTables, deltas: string): string {
  return `counted AS (
  INSERT INTO ${t.durable} AS c (scope, collection, key, version, value, state, state_time, due)
  SELECT d.scope, '${COUNTER_COLLECTION_PREFIX}' || d.collection, d.state || '/' || ${SHARD}, 1, d.delta::text, d.state, 0, NULL
  FROM (${deltas}) AS d (scope, collection, state, delta)
  ORDER BY d.scope, d.collection, d.state
  ON CONFLICT (scope, collection, key) DO UPDATE SET value = (c.value::bigint + excluded.value::bigint)::text, version = c.version + 1
)`
}
