/**
 * The journal's schema, created idempotently on start in one round trip and one transaction.
 *
 * `CREATE TABLE IF NOT EXISTS` is not safe against itself: two sessions creating the same table
 * at once can both pass the check and one fails on pg_type's unique index. Every replica that
 * starts therefore first takes a transaction-level advisory lock named after the table, so
 * creations run one after another and the second finds everything in place.
 *
 * One table, `{prefix}durable`, and the functions of the steps (steps/), replaced at each start.
 * One row per entry, keyed (scope, collection, key), the value as JSON text (not jsonb: jsonb refuses `\u0000` in strings, rewrites numbers and
 * key order, and costs a parse on both sides for a value only botmesh reads). Indexes: the due
 * index (scope, collection, due, key) over rows with a due time, and the state-time index
 * (scope, collection, state, state_time, key). Text columns use the "C" collation: keys order by
 * code point, as in every other backend, and compare fastest. The per-state counts are rows of
 * the same table (counters.ts), and so are the steps' chat lists (steps/steps-function.ts).
 *
 * Older versions kept the counts in `{prefix}durable_counts`, with a function and three triggers.
 * A start that finds them drops them and counts the entries into counter rows, under a lock that
 * holds writers off meanwhile (once per table; later starts find nothing to do). Upgrade every
 * replica together: an older replica still running writes without moving the counter rows (its
 * triggers are gone), and its next start brings the old objects back, which the next start of a
 * newer one drops again, counting afresh.
 */
import { COUNTER_COLLECTION_PREFIX, isCounterCollection } from './counters.js'
import { lockKey, type DurableTables } from './tables.js'
import { stepsSchemaSql } from './steps/sql-template.js'

/** The DDL of the journal: one multi-statement message, run as one transaction. */
export function durableSchemaSql(t: DurableTables): string {
  const { counts, countsFunction, countTriggers } = t.legacy
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
DO $botmesh$
BEGIN
  IF to_regclass('${counts}') IS NOT NULL THEN
    -- The counts table of an older version: count into counter rows while no one can write.
    LOCK TABLE ${t.durable} IN SHARE ROW EXCLUSIVE MODE;
    DROP TRIGGER IF EXISTS "${countTriggers.insert}" ON ${t.durable};
    DROP TRIGGER IF EXISTS "${countTriggers.update}" ON ${t.durable};
    DROP TRIGGER IF EXISTS "${countTriggers.delete}" ON ${t.durable};
    DROP TABLE ${counts};
    DROP FUNCTION IF EXISTS ${countsFunction}();
    DELETE FROM ${t.durable} WHERE ${isCounterCollection('collection')};
    INSERT INTO ${t.durable} (scope, collection, key, version, value, state, state_time, due)
    SELECT scope, '${COUNTER_COLLECTION_PREFIX}' || collection, state || '/0', 1, count(*)::text, state, 0, NULL
    FROM ${t.durable} WHERE NOT ${isCounterCollection('collection')}
    GROUP BY scope, collection, state;
  END IF;
END
$botmesh$;
${stepsSchemaSql(t)}`
}
