/**
 * WRITE_BATCH: the compare-and-sets of many ops, in any scopes and collections, as one prepared
 * statement over arrays (one element per op): one parse per connection, one plan, one round trip,
 * one commit, and one counter change per (scope, collection, state) for the whole batch instead
 * of one per op. Each op keeps the semantics of its own statement in statements.ts.
 *
 * The ops must name distinct (scope, collection, key): the sub-statements of one statement share
 * a snapshot and cannot see each other's rows (writes.ts sends anything else another way).
 *
 * $1 n (int[], the op's position), $2 scope, $3 collection, $4 key (text[]), $5 expected version
 * (bigint[]), $6 value (text[]: JSON text, NULL for a delete), $7 state (text[]), $8 state_time,
 * $9 due (float8[]).
 * Returns one row per op in n order: (n, won: the new version if the op applied, else null, then
 * the entry as the statement's snapshot saw it, its columns null if there was none).
 *
 * The `n BETWEEN` filter keeps every op (n is its position) and is there for the planner: it puts
 * the estimate of the input at one row whatever the arrays hold, in the generic plan and in a
 * custom one alike. Without it the generic plan assumes 100 ops (unnest of a parameter) and looks
 * dearer than a custom plan for the two or eight of a real call, so PostgreSQL planned every call
 * again (0.3 ms of the server's time each, as much as running it); with it the connection keeps
 * one generic plan, which looks each op's rows up by primary key (planner-statistics.ts keeps the
 * statistics that make it choose that key).
 */
import { countedRowsCte } from './counters.js'
import { POSTGRES_LIMITS } from './limits.js'
import type { DurableTables } from './tables.js'

const KEY = (a: string, b: string) => `${a}.scope = ${b}.scope AND ${a}.collection = ${b}.collection AND ${a}.key = ${b}.key`

/** The columns every `won` row carries: the row, its version after the op, its state before and after. */
const WON_COLUMNS = (version: string, before: string, after: string) =>
  `entry.scope, entry.collection, entry.key, ${version} AS version, ${before} AS state_before, ${after} AS state`

export const WRITE_BATCH = (t: DurableTables) => `WITH input AS (
  SELECT * FROM unnest($1::integer[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::text[], $8::float8[], $9::float8[])
    AS i (n, scope, collection, key, expect, value, state, state_time, due)
  WHERE n BETWEEN 0 AND ${POSTGRES_LIMITS.writeBatchMax}
),
inserted AS (
  INSERT INTO ${t.durable} AS entry (scope, collection, key, version, value, state, state_time, due)
  SELECT scope, collection, key, 1, value, state, state_time, due FROM input
  WHERE expect = 0 AND value IS NOT NULL
  ORDER BY scope, collection, key
  ON CONFLICT (scope, collection, key) DO NOTHING
  RETURNING ${WON_COLUMNS('entry.version', 'NULL::text', 'entry.state')}
),
updated AS (
  UPDATE ${t.durable} AS entry
  SET version = entry.version + 1, value = i.value, state = i.state, state_time = i.state_time, due = i.due
  FROM input AS i, ${t.durable} AS before
  WHERE i.expect > 0 AND i.value IS NOT NULL AND ${KEY('entry', 'i')} AND entry.version = i.expect AND ${KEY('before', 'i')}
  RETURNING ${WON_COLUMNS('entry.version', 'before.state', 'entry.state')}
),
deleted AS (
  DELETE FROM ${t.durable} AS entry USING input AS i
  WHERE i.value IS NULL AND ${KEY('entry', 'i')} AND entry.version = i.expect
  RETURNING ${WON_COLUMNS('0::bigint', 'entry.state', 'NULL::text')}
),
won AS (
  SELECT * FROM inserted UNION ALL SELECT * FROM updated UNION ALL SELECT * FROM deleted
),
${countedRowsCte(
  t,
  `SELECT scope, collection, state, sum(delta)::bigint FROM (
    SELECT scope, collection, state_before, -1 FROM won WHERE state_before IS NOT NULL AND state_before IS DISTINCT FROM state
    UNION ALL
    SELECT scope, collection, state, 1 FROM won WHERE state IS NOT NULL AND state IS DISTINCT FROM state_before
  ) AS moved (scope, collection, state, delta)
  GROUP BY scope, collection, state
  HAVING sum(delta) <> 0`,
)}
SELECT i.n, won.version AS won, current.version, current.value, current.state, current.state_time, current.due
FROM input AS i
LEFT JOIN won ON ${KEY('won', 'i')}
LEFT JOIN ${t.durable} AS current ON won.key IS NULL AND ${KEY('current', 'i')}
ORDER BY i.n`
