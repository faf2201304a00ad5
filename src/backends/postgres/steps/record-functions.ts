/**
 * The SQL functions the steps (steps-function.ts, take-back-function.ts) read and rewrite the
 * journal's records with, and the rules of step-rules.ts written over them. Created with the schema
 * (schema.ts), under its lock, by `CREATE OR REPLACE`: a start brings them up to date.
 *
 * A record is rewritten field by field, as the Redis scripts do: its top-level fields stay the JSON
 * text they were written as, and only the fields a rule changes are replaced, by text the TypeScript
 * side made or an integer. jsonb would change a record (it refuses `\u0000` in a string and reorders
 * keys), so a record is read through a copy whose `\uXXXX` escapes are all `\u0020` (the same
 * length: jsonb and json_each take it), and each field's text is cut from the original at the
 * offsets the copy gives. Records are compact JSON, as JSON.stringify writes them.
 */

/** The DDL, its names as {{tokens}} (sql-template.ts). */
export const RECORD_FUNCTIONS_SQL = String.raw`
-- A record's copy to read: its \u escapes made spaces (the same length; jsonb and json_each take it).
CREATE OR REPLACE FUNCTION {{cleaned}}(p_record text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT AS $botmesh$
  SELECT CASE WHEN strpos(p_record, '\u') = 0 THEN p_record ELSE regexp_replace(p_record, '\\u[0-9a-fA-F]{4}', '\\u0020', 'g') END
$botmesh$;

-- A record's top-level fields in order: their names, their JSON text as written, and the record read.
CREATE OR REPLACE FUNCTION {{opened}}(p_record text, OUT names text[], OUT raws text[], OUT view jsonb)
LANGUAGE plpgsql IMMUTABLE STRICT AS $botmesh$
DECLARE
  v_clean text := {{cleaned}}(p_record);
  v_at int := 2;
  v_field record;
BEGIN
  view := v_clean::jsonb;
  names := '{}';
  raws := '{}';
  FOR v_field IN SELECT e.key, length(e.value::text) AS length FROM json_each(v_clean::json) AS e LOOP
    v_at := v_at + length(to_json(v_field.key)::text) + 1;
    names := names || v_field.key;
    raws := raws || substr(p_record, v_at, v_field.length);
    v_at := v_at + v_field.length + 1;
  END LOOP;
END
$botmesh$;

-- A record's text with some fields set (p_set: name, JSON text, name, JSON text…), a new one last.
-- PL/pgSQL, as every function here with a statement: an SQL function's statements are planned at each call.
CREATE OR REPLACE FUNCTION {{rewritten}}(p_names text[], p_raws text[], p_set text[]) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $botmesh$
DECLARE
  v_names text[] := p_names;
  v_raws text[] := p_raws;
  v_parts text[] := '{}';
  v_at int;
BEGIN
  FOR g IN 1 .. cardinality(p_set) / 2 LOOP
    v_at := array_position(v_names, p_set[2 * g - 1]);
    IF v_at IS NULL THEN
      v_names := v_names || p_set[2 * g - 1];
      v_raws := v_raws || p_set[2 * g];
    ELSE
      v_raws[v_at] := p_set[2 * g];
    END IF;
  END LOOP;
  FOR k IN 1 .. cardinality(v_names) LOOP
    v_parts := v_parts || (to_json(v_names[k])::text || ':' || v_raws[k]);
  END LOOP;
  RETURN '{' || array_to_string(v_parts, ',') || '}';
END
$botmesh$;

-- A field's JSON text as written (the chat lists are keyed by the chat's).
CREATE OR REPLACE FUNCTION {{rawOf}}(p_names text[], p_raws text[], p_name text) RETURNS text
LANGUAGE sql IMMUTABLE AS $botmesh$ SELECT p_raws[array_position(p_names, p_name)] $botmesh$;

-- The advisory lock of a chat (steps-function.ts): named after the table, the scope and the chat.
CREATE OR REPLACE FUNCTION {{chatLock}}(p_scope text, p_chat text) RETURNS bigint
LANGUAGE sql IMMUTABLE AS $botmesh$ SELECT hashtextextended('{{durable_name}}' || chr(31) || p_scope || chr(31) || p_chat, 0) $botmesh$;

-- isFenced: a run under p_token may no longer write for the message.
CREATE OR REPLACE FUNCTION {{fenced}}(p_state text, p_view jsonb, p_token numeric) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $botmesh$
  SELECT p_state IS DISTINCT FROM 'processing'
    OR (p_view->>'fencingToken')::numeric IS DISTINCT FROM p_token
    OR (p_view->'lease'->>'token')::numeric IS DISTINCT FROM p_token
$botmesh$;

-- isFree: a chat's head may be claimed now. p_claim: see {{claimed}}.
CREATE OR REPLACE FUNCTION {{free}}(p_state text, p_view jsonb, p_claim text[]) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $botmesh$
  SELECT CASE p_state
    WHEN 'pending' THEN true
    WHEN 'failed' THEN coalesce((p_view->>'nextAttemptAt')::float8, 0) <= p_claim[1]::float8
    WHEN 'processing' THEN jsonb_typeof(p_view->'lease') IS DISTINCT FROM 'object'
      OR (p_view->'lease'->>'expiresAt')::float8 <= p_claim[1]::float8
      OR (p_view->'lease'->>'owner' = p_claim[5] AND p_view->'lease'->>'incarnation' IS NOT NULL
        AND p_view->'lease'->>'incarnation' <> p_claim[6])
    ELSE false END
$botmesh$;

-- A chat's unfinished messages (p_ids, head first) with its finished heads dropped, its head's id,
-- state and record, the head's row locked.
CREATE OR REPLACE FUNCTION {{head}}(p_scope text, p_ids text[], OUT ids text[], OUT id text, OUT state text, OUT value text)
LANGUAGE plpgsql AS $botmesh$
BEGIN
  ids := p_ids;
  WHILE cardinality(ids) > 0 LOOP
    SELECT d.state, d.value INTO state, value FROM {{table}} AS d
    WHERE d.scope = p_scope AND d.collection = 'inbox' AND d.key = ids[1] FOR UPDATE;
    IF FOUND AND state IN {{unfinished}} THEN
      id := ids[1];
      RETURN;
    END IF;
    ids := ids[2:];
  END LOOP;
  state := NULL;
  value := NULL;
END
$botmesh$;

-- claimedRecord, written: processing, one more run charged, the next token and a lease under it.
-- p_claim: now (JSON), the lease's JSON before and after its token, its expiry (JSON), owner, incarnation.
CREATE OR REPLACE FUNCTION {{claimed}}(p_scope text, p_key text, p_value text, p_claim text[]) RETURNS text
LANGUAGE plpgsql AS $botmesh$
DECLARE
  v_record record;
  v_token bigint;
  v_value text;
BEGIN
  SELECT * INTO v_record FROM {{opened}}(p_value);
  v_token := coalesce((v_record.view->>'fencingToken')::bigint, 0) + 1;
  v_value := {{rewritten}}(v_record.names, v_record.raws, ARRAY[
    'state', '"processing"',
    'attempts', (coalesce((v_record.view->>'attempts')::bigint, 0) + 1)::text,
    'fencingToken', v_token::text,
    'lease', p_claim[2] || v_token || p_claim[3],
    'nextAttemptAt', 'null',
    'updatedAt', p_claim[1]]);
  UPDATE {{table}} SET version = version + 1, value = v_value, state = 'processing', state_time = p_claim[1]::float8, due = p_claim[4]::float8
  WHERE scope = p_scope AND collection = 'inbox' AND key = p_key;
  RETURN v_value;
END
$botmesh$;

-- Applies the state moves of a step call to this connection's shard of the counters (counters.ts).
-- p_moves: 4 per write: scope, collection, state before (NULL for a new record), state after.
CREATE OR REPLACE FUNCTION {{counted}}(p_moves text[]) RETURNS void
LANGUAGE plpgsql AS $botmesh$
BEGIN
  INSERT INTO {{table}} AS c (scope, collection, key, version, value, state, state_time, due)
  SELECT d.scope, '{{counts}}' || d.collection, d.state || '/' || (pg_backend_pid() % {{count_shards}})::text,
    1, d.delta::text, d.state, 0, NULL
  FROM (
    SELECT m.scope, m.collection, m.state, sum(m.delta) FROM (
      SELECT p_moves[4 * g - 3], p_moves[4 * g - 2], p_moves[4 * g - 1], -1 FROM generate_series(1, cardinality(p_moves) / 4) AS g
      WHERE p_moves[4 * g - 1] IS NOT NULL
      UNION ALL
      SELECT p_moves[4 * g - 3], p_moves[4 * g - 2], p_moves[4 * g], 1 FROM generate_series(1, cardinality(p_moves) / 4) AS g
    ) AS m (scope, collection, state, delta)
    GROUP BY m.scope, m.collection, m.state HAVING sum(m.delta) <> 0
  ) AS d (scope, collection, state, delta)
  ORDER BY d.scope, d.collection, d.state
  ON CONFLICT (scope, collection, key) DO UPDATE SET value = (c.value::bigint + excluded.value::bigint)::text, version = c.version + 1;
END
$botmesh$;
`
