/**
 * The journal's schema, created idempotently on start in one round trip and one transaction.
 *
 * `CREATE TABLE IF NOT EXISTS` is not safe against itself: two sessions creating the same table
 * at once can both pass the check and one fails on pg_type's unique index. Every replica that
 * starts therefore first takes a transaction-level advisory lock named after the table, so
 * creations run one after another and the second finds everything in place.
 *
 * Tables:
 * - `{prefix}durable`: one row per entry, keyed (scope, collection, key), the value as JSON text
 *   (not jsonb: jsonb refuses `\u0000` in strings, rewrites numbers and key order, and costs a
 *   parse on both sides for a value only botmesh reads). Indexes: the due index
 *   (scope, collection, due, key) over rows with a due time, and the state-time index
 *   (scope, collection, state, state_time, key). Text columns use the "C" collation: keys order
 *   by code point, as in every other backend, and compare fastest.
 * - `{prefix}durable_counts`: entries per (scope, collection, state), split into shards. A
 *   `count(*) GROUP BY state` over a million rows takes about a quarter of a second even as a
 *   parallel index-only scan; the counts answer from a few hundred rows. They are kept by
 *   statement-level triggers with transition tables, so every statement that changes the table
 *   (ours, a purge, an operator's DELETE in psql) keeps them exact, in its own transaction, with
 *   one counts update per statement (a bulk load pays once, not per row). A write that keeps its
 *   state (a lease heartbeat) changes no counter. Each connection adds to its own shard
 *   (backend pid modulo `countShards`), so concurrent writers seldom wait on one counter row.
 */
import { POSTGRES_LIMITS } from './limits.js'
import { lockKey, type DurableTables } from './tables.js'

/** The DDL of the journal: one multi-statement message, run as one transaction. */
export function durableSchemaSql(t: DurableTables): string {
  const shard = `(pg_backend_pid() % ${POSTGRES_LIMITS.countShards})::smallint`
  const upsert = `ON CONFLICT (scope, collection, state, shard) DO UPDATE SET entries = c.entries + excluded.entries`
  return `SELECT pg_advisory_xact_lock('${lockKey(t.lockName)}'::bigint);
CREATE TABLE IF NOT EXISTS ${t.durable} (
  scope text COLLATE "C" NOT NULL,
  collection text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  version bigint NOT NULL,
  value text NOT NULL,
  state text COLLATE "C" NOT NULL,
  state_time float8 NOT NULL,
  due float8,
  PRIMARY KEY (scope, collection, key)
);
CREATE INDEX IF NOT EXISTS ${t.dueIndex} ON ${t.durable} (scope, collection, due, key) WHERE due IS NOT NULL;
CREATE INDEX IF NOT EXISTS ${t.stateIndex} ON ${t.durable} (scope, collection, state, state_time, key);
CREATE TABLE IF NOT EXISTS ${t.counts} (
  scope text COLLATE "C" NOT NULL,
  collection text COLLATE "C" NOT NULL,
  state text COLLATE "C" NOT NULL,
  shard smallint NOT NULL,
  entries bigint NOT NULL,
  PRIMARY KEY (scope, collection, state, shard)
);
CREATE OR REPLACE FUNCTION ${t.countsFunction}() RETURNS trigger LANGUAGE plpgsql AS $botmesh$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO ${t.counts} AS c (scope, collection, state, shard, entries)
    SELECT scope, collection, state, ${shard}, count(*) FROM new_rows
    GROUP BY scope, collection, state ORDER BY scope, collection, state
    ${upsert};
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO ${t.counts} AS c (scope, collection, state, shard, entries)
    SELECT scope, collection, state, ${shard}, -count(*) FROM old_rows
    GROUP BY scope, collection, state ORDER BY scope, collection, state
    ${upsert};
  ELSE
    INSERT INTO ${t.counts} AS c (scope, collection, state, shard, entries)
    SELECT scope, collection, state, ${shard}, sum(delta) FROM (
      SELECT scope, collection, state, 1 AS delta FROM new_rows
      UNION ALL
      SELECT scope, collection, state, -1 AS delta FROM old_rows
    ) changes
    GROUP BY scope, collection, state HAVING sum(delta) <> 0 ORDER BY scope, collection, state
    ${upsert};
  END IF;
  RETURN NULL;
END
$botmesh$;
DO $botmesh$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_trigger WHERE tgrelid = '${t.durable}'::regclass AND tgname = '${t.countTriggers.insert}') THEN
    -- First start on this table: count what it already holds while no one can write to it.
    LOCK TABLE ${t.durable} IN SHARE ROW EXCLUSIVE MODE;
    DELETE FROM ${t.counts};
    INSERT INTO ${t.counts} (scope, collection, state, shard, entries)
    SELECT scope, collection, state, 0, count(*) FROM ${t.durable} GROUP BY scope, collection, state;
    CREATE TRIGGER "${t.countTriggers.insert}" AFTER INSERT ON ${t.durable}
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${t.countsFunction}();
    CREATE TRIGGER "${t.countTriggers.update}" AFTER UPDATE ON ${t.durable}
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${t.countsFunction}();
    CREATE TRIGGER "${t.countTriggers.delete}" AFTER DELETE ON ${t.durable}
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ${t.countsFunction}();
  END IF;
END
$botmesh$;`
}
