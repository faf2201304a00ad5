/**
 * The schema botmesh created before its counts moved into the journal table: `{prefix}durable`
 * plus `{prefix}durable_counts`, a counting function and three statement-level triggers. Kept
 * here, as it was, so a test can build the deployment an upgrade starts from.
 */
import { lockKey, type DurableTables } from '../../src/backends/postgres/tables.js'

/** The DDL an older botmesh ran on start. */
export function legacySchemaSql(t: DurableTables): string {
  const { counts, countsFunction, countTriggers } = t.legacy
  const shard = `(pg_backend_pid() % 64)::smallint`
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
CREATE TABLE IF NOT EXISTS ${counts} (
  scope text COLLATE "C" NOT NULL,
  collection text COLLATE "C" NOT NULL,
  state text COLLATE "C" NOT NULL,
  shard smallint NOT NULL,
  entries bigint NOT NULL,
  PRIMARY KEY (scope, collection, state, shard)
);
CREATE OR REPLACE FUNCTION ${countsFunction}() RETURNS trigger LANGUAGE plpgsql AS $botmesh$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO ${counts} AS c (scope, collection, state, shard, entries)
    SELECT scope, collection, state, ${shard}, count(*) FROM new_rows
    GROUP BY scope, collection, state ORDER BY scope, collection, state
    ${upsert};
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO ${counts} AS c (scope, collection, state, shard, entries)
    SELECT scope, collection, state, ${shard}, -count(*) FROM old_rows
    GROUP BY scope, collection, state ORDER BY scope, collection, state
    ${upsert};
  ELSE
    INSERT INTO ${counts} AS c (scope, collection, state, shard, entries)
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
  IF NOT EXISTS (SELECT FROM pg_trigger WHERE tgrelid = '${t.durable}'::regclass AND tgname = '${countTriggers.insert}') THEN
    -- First start on this table: count what it already holds while no one can write to it.
    LOCK TABLE ${t.durable} IN SHARE ROW EXCLUSIVE MODE;
    DELETE FROM ${counts};
    INSERT INTO ${counts} (scope, collection, state, shard, entries)
    SELECT scope, collection, state, 0, count(*) FROM ${t.durable} GROUP BY scope, collection, state;
    CREATE TRIGGER "${countTriggers.insert}" AFTER INSERT ON ${t.durable}
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${countsFunction}();
    CREATE TRIGGER "${countTriggers.update}" AFTER UPDATE ON ${t.durable}
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${countsFunction}();
    CREATE TRIGGER "${countTriggers.delete}" AFTER DELETE ON ${t.durable}
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ${countsFunction}();
  END IF;
END
$botmesh$;`
}
