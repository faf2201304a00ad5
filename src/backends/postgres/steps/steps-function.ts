/**
 * `{prefix}durable_steps(steps text[]) RETURNS text[]`: admits, journals and settles a batch of
 * steps, of any scopes, in one call, one transaction and one commit (steps.ts sends what was
 * queued meanwhile). The rules are step-rules.ts's, over the journal's own rows.
 *
 * Each chat's unfinished messages, head first, are a row of the reserved collection `#chats`
 * (key: the chat's JSON text; value: a JSON array of ids; deleted once empty). A chat is locked
 * (a transaction-level advisory lock named after the table, scope and chat: no row written for
 * it) before its messages are touched, so one process at a time admits to a chat and hands its
 * head over: the order holds across processes. The call takes every chat's lock it needs first,
 * in one order, so two calls never wait on each other's chats (no deadlock).
 *
 * $1 steps, flat, each a kind then its fields:
 * - `admit`, scope, id, chat (JSON), then the record as run and as queued, each: JSON, state,
 *   state time, due ('' for none) (12 in all);
 * - `journal`, scope, the message's id (NULL outside one), its token, n, then n records, each:
 *   key, JSON, state, state time, due ('' for none);
 * - `settle`, scope, the claim (6, see record-functions.ts), n marks, then each: key, the
 *   provider's id (JSON); then the message's id (NULL for none), its token, the end's state and two
 *   details (done: note JSON or ''; failed: error JSON, retry time; dead: error JSON).
 * Returns 2 per step: `run`/`queued`/`duplicate` (with the record), `journaled`/`recorded` (with
 * the record)/`fenced`, `settled` (with the next message claimed, or NULL)/`fenced`.
 */

/** The reserved collection of the chats' lists of unfinished messages (no write of the journal may name it). */
export const CHAT_COLLECTION = '#chats'

/** The DDL, its names as {{tokens}} (sql-template.ts). */
export const STEPS_FUNCTION_SQL = String.raw`
CREATE OR REPLACE FUNCTION {{steps}}(p_steps text[]) RETURNS text[]
LANGUAGE plpgsql AS $botmesh$
DECLARE
  s text[] := p_steps;
  answers text[] := '{}';
  moves text[] := '{}';
  want_scopes text[] := '{}';
  want_chats text[] := '{}';
  chat_scopes text[];
  chat_keys text[];
  chat_lists text[];
  chat_before text[];
  i int := 1;
  e int;
  j int;
  n int;
  v_scope text;
  v_chat text;
  v_state text;
  v_value text;
  v_claim text[];
  v_set text[];
  v_next text;
  v_record record;
  v_head record;
  v_lock bigint;
BEGIN
  -- The chats this call needs: an admit's, and a settled message's (read from its record).
  WHILE i <= cardinality(s) LOOP
    CASE s[i]
    WHEN 'admit' THEN
      want_scopes := want_scopes || s[i + 1];
      want_chats := want_chats || s[i + 3];
      i := i + 12;
    WHEN 'journal' THEN
      i := i + 5 + 5 * s[i + 4]::int;
    WHEN 'settle' THEN
      e := i + 9 + 2 * s[i + 8]::int;
      IF s[e] IS NOT NULL THEN
        SELECT value INTO v_value FROM {{table}} WHERE scope = s[i + 1] AND collection = 'inbox' AND key = s[e];
        IF FOUND THEN
          SELECT {{rawOf}}(o.names, o.raws, 'chatId') INTO v_chat FROM {{opened}}(v_value) AS o;
          want_scopes := want_scopes || s[i + 1];
          want_chats := want_chats || v_chat;
        END IF;
      END IF;
      i := e + 5;
    ELSE
      RAISE EXCEPTION 'botmesh: no step %', s[i];
    END CASE;
  END LOOP;

  -- Lock them in one order (no two calls wait on each other), then read their lists.
  FOR v_lock IN SELECT DISTINCT {{chatLock}}(w.scope, w.chat) FROM unnest(want_scopes, want_chats) AS w (scope, chat) ORDER BY 1 LOOP
    PERFORM pg_advisory_xact_lock(v_lock);
  END LOOP;
  SELECT array_agg(w.scope), array_agg(w.chat), array_agg(coalesce(d.value, '[]')), array_agg(d.value)
  INTO chat_scopes, chat_keys, chat_lists, chat_before
  FROM (SELECT DISTINCT * FROM unnest(want_scopes, want_chats)) AS w (scope, chat)
  LEFT JOIN {{table}} AS d ON d.scope = w.scope AND d.collection = '{{chats}}' AND d.key = w.chat;

  i := 1;
  WHILE i <= cardinality(s) LOOP
    v_scope := s[i + 1];
    CASE s[i]
    WHEN 'admit' THEN
      SELECT value INTO v_value FROM {{table}} WHERE scope = v_scope AND collection = 'inbox' AND key = s[i + 2];
      IF FOUND THEN
        answers := answers || ARRAY['duplicate', v_value];
      ELSE
        j := (SELECT g FROM generate_series(1, cardinality(chat_keys)) AS g WHERE chat_scopes[g] = v_scope AND chat_keys[g] = s[i + 3]);
        SELECT * INTO v_head FROM {{head}}(v_scope, ARRAY(SELECT json_array_elements_text(chat_lists[j]::json)));
        e := CASE WHEN v_head.id IS NULL THEN i + 4 ELSE i + 8 END;
        INSERT INTO {{table}} (scope, collection, key, version, value, state, state_time, due)
        VALUES (v_scope, 'inbox', s[i + 2], 1, s[e], s[e + 1], s[e + 2]::float8, nullif(s[e + 3], '')::float8)
        ON CONFLICT (scope, collection, key) DO NOTHING;
        chat_lists[j] := to_json(v_head.ids || s[i + 2])::text;
        moves := moves || ARRAY[v_scope, 'inbox', NULL, s[e + 1]];
        answers := answers || ARRAY[CASE WHEN v_head.id IS NULL THEN 'run' ELSE 'queued' END, NULL];
      END IF;
      i := i + 12;

    WHEN 'journal' THEN
      n := s[i + 4]::int;
      v_state := 'processing';
      IF s[i + 2] IS NOT NULL THEN
        SELECT state, value INTO v_state, v_value FROM {{table}} WHERE scope = v_scope AND collection = 'inbox' AND key = s[i + 2];
        IF NOT FOUND OR {{fenced}}(v_state, {{cleaned}}(v_value)::jsonb, s[i + 3]::numeric) THEN v_state := 'fenced'; END IF;
      END IF;
      IF v_state = 'fenced' THEN
        answers := answers || ARRAY['fenced', NULL];
      ELSE
        SELECT value INTO v_value FROM {{table}} WHERE scope = v_scope AND collection = 'outbox' AND key = s[i + 5];
        IF FOUND THEN
          answers := answers || ARRAY['recorded', v_value];
        ELSE
          FOR k IN 0 .. n - 1 LOOP
            e := i + 5 + 5 * k;
            INSERT INTO {{table}} (scope, collection, key, version, value, state, state_time, due)
            VALUES (v_scope, 'outbox', s[e], 1, s[e + 1], s[e + 2], s[e + 3]::float8, nullif(s[e + 4], '')::float8)
            ON CONFLICT (scope, collection, key) DO NOTHING;
            IF FOUND THEN moves := moves || ARRAY[v_scope, 'outbox', NULL, s[e + 2]]; END IF;
          END LOOP;
          answers := answers || ARRAY['journaled', NULL];
        END IF;
      END IF;
      i := i + 5 + 5 * n;

    WHEN 'settle' THEN
      v_claim := s[i + 2 : i + 7];
      n := s[i + 8]::int;
      -- The marks, whatever the fence says: the channel took these sends.
      FOR k IN 0 .. n - 1 LOOP
        e := i + 9 + 2 * k;
        SELECT state, value INTO v_state, v_value FROM {{table}} WHERE scope = v_scope AND collection = 'outbox' AND key = s[e] FOR UPDATE;
        IF FOUND AND v_state <> 'sent' THEN
          SELECT * INTO v_record FROM {{opened}}(v_value);
          v_value := {{rewritten}}(v_record.names, v_record.raws, ARRAY[
            'state', '"sent"', 'attempts', (coalesce((v_record.view->>'attempts')::bigint, 0) + 1)::text, 'providerMessageId', s[e + 1],
            'lease', 'null', 'nextAttemptAt', 'null', 'lastError', 'null', 'updatedAt', v_claim[1]]);
          UPDATE {{table}} SET version = version + 1, value = v_value, state = 'sent', state_time = v_claim[1]::float8, due = NULL
          WHERE scope = v_scope AND collection = 'outbox' AND key = s[e];
          moves := moves || ARRAY[v_scope, 'outbox', v_state, 'sent'];
        END IF;
      END LOOP;
      e := i + 9 + 2 * n;
      i := e + 5;
      IF s[e] IS NULL THEN
        answers := answers || ARRAY['settled', NULL];
        CONTINUE;
      END IF;
      SELECT state, value INTO v_state, v_value FROM {{table}} WHERE scope = v_scope AND collection = 'inbox' AND key = s[e] FOR UPDATE;
      IF NOT FOUND THEN v_value := NULL; END IF;
      SELECT * INTO v_record FROM {{opened}}(v_value);
      IF v_value IS NULL OR {{fenced}}(v_state, v_record.view, s[e + 1]::numeric) THEN
        answers := answers || ARRAY['fenced', NULL];
        CONTINUE;
      END IF;
      -- endedRecord
      v_set := ARRAY['state', to_json(s[e + 2])::text, 'lease', 'null', 'updatedAt', v_claim[1]];
      v_set := v_set || CASE s[e + 2]
        WHEN 'done' THEN CASE WHEN s[e + 3] = '' THEN ARRAY['nextAttemptAt', 'null'] ELSE ARRAY['nextAttemptAt', 'null', 'note', s[e + 3]] END
        WHEN 'failed' THEN ARRAY['nextAttemptAt', s[e + 4], 'lastError', s[e + 3]]
        ELSE ARRAY['nextAttemptAt', 'null', 'lastError', s[e + 3]] END;
      UPDATE {{table}} SET version = version + 1, value = {{rewritten}}(v_record.names, v_record.raws, v_set), state = s[e + 2],
        state_time = v_claim[1]::float8, due = CASE WHEN s[e + 2] = 'failed' THEN s[e + 4]::float8 END
      WHERE scope = v_scope AND collection = 'inbox' AND key = s[e];
      moves := moves || ARRAY[v_scope, 'inbox', v_state, s[e + 2]];
      IF s[e + 2] = 'failed' THEN
        answers := answers || ARRAY['settled', NULL];
        CONTINUE;
      END IF;
      -- Off its chat's list; the chat's next message, when it waits, is claimed and handed over.
      j := (SELECT g FROM generate_series(1, cardinality(chat_keys)) AS g
        WHERE chat_scopes[g] = v_scope AND chat_keys[g] = {{rawOf}}(v_record.names, v_record.raws, 'chatId'));
      v_next := NULL;
      IF j IS NOT NULL THEN
        SELECT * INTO v_head FROM {{head}}(v_scope, array_remove(ARRAY(SELECT json_array_elements_text(chat_lists[j]::json)), s[e]));
        IF v_head.state = 'pending' THEN
          v_next := {{claimed}}(v_scope, v_head.id, v_head.value, v_claim);
          moves := moves || ARRAY[v_scope, 'inbox', 'pending', 'processing'];
        END IF;
        chat_lists[j] := to_json(v_head.ids)::text;
      END IF;
      answers := answers || ARRAY['settled', v_next];
    END CASE;
  END LOOP;

  FOR j IN 1 .. coalesce(cardinality(chat_keys), 0) LOOP
    IF chat_lists[j] = '[]' THEN
      IF chat_before[j] IS NOT NULL THEN
        DELETE FROM {{table}} WHERE scope = chat_scopes[j] AND collection = '{{chats}}' AND key = chat_keys[j];
      END IF;
    ELSIF chat_lists[j] IS DISTINCT FROM chat_before[j] THEN
      INSERT INTO {{table}} AS c (scope, collection, key, version, value, state, state_time, due)
      VALUES (chat_scopes[j], '{{chats}}', chat_keys[j], 1, chat_lists[j], 'open', 0, NULL)
      ON CONFLICT (scope, collection, key) DO UPDATE SET value = excluded.value, version = c.version + 1;
    END IF;
  END LOOP;
  IF cardinality(moves) > 0 THEN PERFORM {{counted}}(moves); END IF;
  RETURN answers;
END
$botmesh$;
`
