/**
 * `{prefix}durable_take_back(…) RETURNS text[]`: the sweeper's pass over one scope (JournalSteps
 * takeBack). Claims the chats' heads that are free (a lease over or of an earlier run of this
 * owner, a retry due, a pending head), at most `limit`; a head whose runs were spent is
 * dead-lettered and its chat goes on with its next message. A head whose last run must run alone
 * (step-rules.ts isLastRunAlone) is left where it is. Then the due messages no chat list holds (an
 * operator's replay, a journal written before the steps) join the end of their chat. An alone pass
 * ($9, a message's id) claims that message if it still waits so, and nothing else.
 *
 * Chats another call holds locked are skipped (`pg_try_advisory_xact_lock`): that call is working
 * on them, and a pass never waits, so it never deadlocks with the steps.
 *
 * $1 scope, $2 the claim (6, see record-functions.ts), $3 maxAttempts, $4 limit, $5 the chat to go
 * on after ('' from the first), $6 chats looked at, at most, $7 and $8 the JSON of
 * unfinishedRunsError before and after its number of runs, $9 the id an alone pass claims, or ''.
 * Returns the chat to go on after next time ('' once the pass reached the last one), then 2 per
 * message taken: '1' if dead-lettered, '2' if left to an alone pass (else '0'), and its record.
 * (The function had no $9 before: that one is dropped, in the schema's transaction.)
 */

/** The DDL, its names as {{tokens}} (sql-template.ts). */
export const TAKE_BACK_FUNCTION_SQL = String.raw`
DROP FUNCTION IF EXISTS {{takeBack}}(text, text[], int, int, text, int, text, text);
CREATE OR REPLACE FUNCTION {{takeBack}}(p_scope text, p_claim text[], p_max_attempts int, p_limit int, p_after text, p_chats_max int,
  p_spent_before text, p_spent_after text, p_alone text) RETURNS text[]
LANGUAGE plpgsql AS $botmesh$
DECLARE
  answers text[] := ARRAY[''];
  moves text[] := '{}';
  taken int := 0;
  looked int := 0;
  v_chat record;
  v_due record;
  v_head record;
  v_record record;
  v_ids text[];
  v_value text;
  v_list text;
  v_key text;
  v_attempts int;
BEGIN
  IF p_alone <> '' THEN
    -- A processing message is its chat's head: only the head runs.
    SELECT value INTO v_value FROM {{table}} WHERE scope = p_scope AND collection = 'inbox' AND key = p_alone AND state = 'processing';
    IF NOT FOUND THEN RETURN answers; END IF;
    SELECT * INTO v_record FROM {{opened}}(v_value);
    IF NOT pg_try_advisory_xact_lock({{chatLock}}(p_scope, {{rawOf}}(v_record.names, v_record.raws, 'chatId'))) THEN RETURN answers; END IF;
    SELECT value INTO v_value FROM {{table}} WHERE scope = p_scope AND collection = 'inbox' AND key = p_alone AND state = 'processing' FOR UPDATE;
    IF NOT FOUND THEN RETURN answers; END IF;
    SELECT * INTO v_record FROM {{opened}}(v_value);
    IF {{free}}('processing', v_record.view, p_claim) AND coalesce((v_record.view->>'attempts')::int, 0) + 1 = p_max_attempts THEN
      answers := answers || ARRAY['0', {{claimed}}(p_scope, p_alone, v_value, p_claim)];
    END IF;
    RETURN answers;
  END IF;

  FOR v_chat IN SELECT key FROM {{table}} WHERE scope = p_scope AND collection = '{{chats}}' AND key > p_after
    ORDER BY key LIMIT p_chats_max
  LOOP
    EXIT WHEN taken >= p_limit;
    looked := looked + 1;
    answers[1] := v_chat.key;
    CONTINUE WHEN NOT pg_try_advisory_xact_lock({{chatLock}}(p_scope, v_chat.key));
    -- Read again under the lock: another call may have changed it since the scan began.
    SELECT value INTO v_list FROM {{table}} WHERE scope = p_scope AND collection = '{{chats}}' AND key = v_chat.key;
    CONTINUE WHEN NOT FOUND;
    v_ids := ARRAY(SELECT json_array_elements_text(v_list::json));
    LOOP
      SELECT * INTO v_head FROM {{head}}(p_scope, v_ids);
      v_ids := v_head.ids;
      EXIT WHEN v_head.id IS NULL;
      SELECT * INTO v_record FROM {{opened}}(v_head.value);
      EXIT WHEN NOT {{free}}(v_head.state, v_record.view, p_claim);
      v_attempts := coalesce((v_record.view->>'attempts')::int, 0);
      taken := taken + 1;
      IF v_head.state = 'processing' AND v_attempts + 1 = p_max_attempts THEN
        -- isLastRunAlone: left where it is, for an alone pass.
        answers := answers || ARRAY['2', v_head.value];
        EXIT;
      END IF;
      IF v_attempts < p_max_attempts THEN
        answers := answers || ARRAY['0', {{claimed}}(p_scope, v_head.id, v_head.value, p_claim)];
        moves := moves || ARRAY[p_scope, 'inbox', v_head.state, 'processing'];
        EXIT;
      END IF;
      -- spentRecord: its runs were spent; its chat goes on with the next message.
      v_value := {{rewritten}}(v_record.names, v_record.raws, ARRAY['state', '"dead"', 'lease', 'null', 'nextAttemptAt', 'null', 'updatedAt', p_claim[1]]
        || CASE WHEN jsonb_typeof(v_record.view->'lastError') = 'object' THEN '{}'::text[]
           ELSE ARRAY['lastError', p_spent_before || coalesce((v_record.view->>'attempts')::int, 0) || p_spent_after] END);
      UPDATE {{table}} SET version = version + 1, value = v_value, state = 'dead', state_time = p_claim[1]::float8, due = NULL
      WHERE scope = p_scope AND collection = 'inbox' AND key = v_head.id;
      moves := moves || ARRAY[p_scope, 'inbox', v_head.state, 'dead'];
      answers := answers || ARRAY['1', v_value];
      v_ids := v_ids[2:];
    END LOOP;
    IF cardinality(v_ids) = 0 THEN
      DELETE FROM {{table}} WHERE scope = p_scope AND collection = '{{chats}}' AND key = v_chat.key;
    ELSIF to_json(v_ids)::text <> v_list THEN
      UPDATE {{table}} SET version = version + 1, value = to_json(v_ids)::text WHERE scope = p_scope AND collection = '{{chats}}' AND key = v_chat.key;
    END IF;
  END LOOP;
  IF taken < p_limit AND looked < p_chats_max THEN answers[1] := ''; END IF;

  IF taken < p_limit THEN
    FOR v_due IN SELECT key, value FROM {{table}} WHERE scope = p_scope AND collection = 'inbox' AND due IS NOT NULL AND due <= p_claim[1]::float8
      ORDER BY due, key LIMIT p_limit - taken
    LOOP
      SELECT * INTO v_record FROM {{opened}}(v_due.value);
      v_key := {{rawOf}}(v_record.names, v_record.raws, 'chatId');
      CONTINUE WHEN NOT pg_try_advisory_xact_lock({{chatLock}}(p_scope, v_key));
      SELECT value INTO v_list FROM {{table}} WHERE scope = p_scope AND collection = '{{chats}}' AND key = v_key;
      v_ids := ARRAY(SELECT json_array_elements_text(coalesce(v_list, '[]')::json));
      IF v_due.key <> ALL (v_ids) THEN
        INSERT INTO {{table}} AS c (scope, collection, key, version, value, state, state_time, due)
        VALUES (p_scope, '{{chats}}', v_key, 1, to_json(v_ids || v_due.key)::text, 'open', 0, NULL)
        ON CONFLICT (scope, collection, key) DO UPDATE SET value = excluded.value, version = c.version + 1;
      END IF;
    END LOOP;
  END IF;
  IF cardinality(moves) > 0 THEN PERFORM {{counted}}(moves); END IF;
  RETURN answers;
END
$botmesh$;
`
