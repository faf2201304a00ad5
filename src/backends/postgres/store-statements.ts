/**
 * The store's schema and statements (`PostgresStore`): user data, flow checkpoints and the
 * message log, in tables of their own. Nothing here touches the journal's tables. Values are JSON
 * text, as in the journal.
 */
import { lockKey, type StoreTables } from './tables.js'

/** The store's DDL: one multi-statement message, one transaction, serialized by an advisory lock. */
export const STORE_SCHEMA = (t: StoreTables) => `SELECT pg_advisory_xact_lock('${lockKey(t.lockName)}'::bigint);
CREATE TABLE IF NOT EXISTS ${t.users} (
  scope text COLLATE "C" NOT NULL,
  chat_id text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  value text NOT NULL,
  PRIMARY KEY (scope, chat_id, key)
);
CREATE TABLE IF NOT EXISTS ${t.checkpoints} (
  scope text COLLATE "C" NOT NULL,
  chat_id text COLLATE "C" NOT NULL,
  value text NOT NULL,
  PRIMARY KEY (scope, chat_id)
);
CREATE TABLE IF NOT EXISTS ${t.messageLog} (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  scope text COLLATE "C" NOT NULL,
  chat_id text COLLATE "C" NOT NULL,
  direction text NOT NULL,
  message_id text,
  text text,
  at float8 NOT NULL,
  ref text
);
CREATE INDEX IF NOT EXISTS ${t.messageLogIndex} ON ${t.messageLog} (scope, chat_id, id);`

/**
 * One user value.
 * $1 scope, $2 chat id, $3 key. Returns (value) or no row.
 */
export const SELECT_USER = (t: StoreTables) =>
  `SELECT value FROM ${t.users} WHERE scope = $1::text AND chat_id = $2::text AND key = $3::text`

/**
 * Sets one user value.
 * $1 scope, $2 chat id, $3 key, $4 value (JSON text). Returns no rows.
 */
export const UPSERT_USER = (
  t: StoreTables,
) => `INSERT INTO ${t.users} (scope, chat_id, key, value) VALUES ($1::text, $2::text, $3::text, $4::text)
ON CONFLICT (scope, chat_id, key) DO UPDATE SET value = excluded.value`

/**
 * The chat's flow checkpoint.
 * $1 scope, $2 chat id. Returns (value) or no row.
 */
export const SELECT_CHECKPOINT = (t: StoreTables) => `SELECT value FROM ${t.checkpoints} WHERE scope = $1::text AND chat_id = $2::text`

/**
 * Sets the chat's flow checkpoint.
 * $1 scope, $2 chat id, $3 value (JSON text). Returns no rows.
 */
export const UPSERT_CHECKPOINT = (
  t: StoreTables,
) => `INSERT INTO ${t.checkpoints} (scope, chat_id, value) VALUES ($1::text, $2::text, $3::text)
ON CONFLICT (scope, chat_id) DO UPDATE SET value = excluded.value`

/**
 * Removes the chat's flow checkpoint.
 * $1 scope, $2 chat id. Returns no rows.
 */
export const DELETE_CHECKPOINT = (t: StoreTables) => `DELETE FROM ${t.checkpoints} WHERE scope = $1::text AND chat_id = $2::text`

/**
 * Appends one line to the message log.
 * $1 scope, $2 chat id, $3 direction, $4 message id, $5 text, $6 at (ms), $7 ref. Returns no rows.
 */
export const INSERT_LOG = (t: StoreTables) => `INSERT INTO ${t.messageLog} (scope, chat_id, direction, message_id, text, at, ref)
VALUES ($1::text, $2::text, $3::text, $4::text, $5::text, $6::float8, $7::text)`

/**
 * Trims the chat's log to its newest lines: deletes every line at or before the one $3 places from
 * the newest (MessageLogTrims says when).
 * $1 scope, $2 chat id, $3 lines kept. Returns no rows.
 */
export const TRIM_LOG = (t: StoreTables) => `DELETE FROM ${t.messageLog} WHERE scope = $1::text AND chat_id = $2::text AND id <= (
  SELECT id FROM ${t.messageLog} WHERE scope = $1::text AND chat_id = $2::text ORDER BY id DESC LIMIT 1 OFFSET $3::integer
)`

/**
 * The chat's latest log lines, oldest first.
 * $1 scope, $2 chat id, $3 limit. Returns (chat_id, direction, message_id, text, at, ref) rows.
 */
export const SELECT_LOG = (t: StoreTables) => `SELECT chat_id, direction, message_id, text, at, ref FROM (
  SELECT id, chat_id, direction, message_id, text, at, ref FROM ${t.messageLog}
  WHERE scope = $1::text AND chat_id = $2::text
  ORDER BY id DESC
  LIMIT $3::integer
) latest
ORDER BY id`
