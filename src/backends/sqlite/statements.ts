/**
 * Every SQL statement of the SQLite backend (the schema's DDL aside, in schema.ts): one operation
 * each, with its parameters (`?` in order) and what it returns. The durability's statements touch
 * only `durable` (its counts follow by trigger); the store's only the `store_*` tables.
 */
import type BetterSqlite3 from 'better-sqlite3'
import { TABLES } from './schema.js'

const { durable, durableCounts, users, checkpoints, messageLog } = TABLES

/** The columns of an entry, in the order `EntryRow` has them. */
const ENTRY = 'key, version, value, state, state_time, due'

/** The journals' statements. */
export const DURABLE_SQL = {
  /** (scope, collection, key) → one EntryRow or none. */
  get: `SELECT ${ENTRY} FROM ${durable} WHERE scope = ? AND collection = ? AND key = ?`,
  /**
   * Insert-if-absent, the compare-and-set of expectVersion 0.
   * (scope, collection, key, value, state, state_time, due) → changes 1 if inserted (version 1), 0 if the key exists.
   */
  insert: `INSERT INTO ${durable} (scope, collection, key, version, value, state, state_time, due)
    VALUES (?, ?, ?, 1, ?, ?, ?, ?) ON CONFLICT (scope, collection, key) DO NOTHING`,
  /**
   * Replace-if-version, the compare-and-set of expectVersion n.
   * (value, state, state_time, due, scope, collection, key, expectVersion) → changes 1 if replaced (version n + 1), else 0.
   */
  update: `UPDATE ${durable} SET version = version + 1, value = ?, state = ?, state_time = ?, due = ?
    WHERE scope = ? AND collection = ? AND key = ? AND version = ?`,
  /** Delete-if-version. (scope, collection, key, expectVersion) → changes 1 if deleted, else 0. */
  delete: `DELETE FROM ${durable} WHERE scope = ? AND collection = ? AND key = ? AND version = ?`,
  /** The due index. (scope, collection, until, limit) → EntryRows with due <= until, by (due, key). */
  due: `SELECT ${ENTRY} FROM ${durable} WHERE scope = ? AND collection = ? AND due <= ? ORDER BY due, key LIMIT ?`,
  /** First page of a state. (scope, collection, state, before, limit) → EntryRows by (state_time, key). */
  listFirst: `SELECT ${ENTRY} FROM ${durable} WHERE scope = ? AND collection = ? AND state = ? AND state_time < ?
    ORDER BY state_time, key LIMIT ?`,
  /** A later page. (scope, collection, state, afterTime, afterKey, before, limit) → EntryRows after the cursor. */
  listAfter: `SELECT ${ENTRY} FROM ${durable} WHERE scope = ? AND collection = ? AND state = ?
    AND (state_time, key) > (?, ?) AND state_time < ? ORDER BY state_time, key LIMIT ?`,
  /**
   * A search's page (kv.ts `list` with `search`): the entries of a state, after the cursor, whose
   * lowercased JSON text is LIKE one of the patterns (a JSON array of like-pattern.ts patterns).
   * (scope, collection, state, afterTime, afterKey, before, patterns, limit) → EntryRows.
   */
  listSearch: `SELECT ${ENTRY} FROM ${durable} AS d WHERE scope = ? AND collection = ? AND state = ?
    AND (state_time, key) > (?, ?) AND state_time < ?
    AND EXISTS (SELECT 1 FROM json_each(?) AS p WHERE lower(d.value) LIKE p.value ESCAPE '\\')
    ORDER BY state_time, key LIMIT ?`,
  /** Counts per state from the trigger-kept table. (scope, collection) → { state, n } rows with n > 0. */
  count: `SELECT state, n FROM ${durableCounts} WHERE scope = ? AND collection = ? AND n > 0`,
  /**
   * Deletes the oldest entries of a state, along the state-time index.
   * (scope, collection, state, olderThan, limit) → changes = entries deleted.
   */
  purge: `DELETE FROM ${durable} WHERE rowid IN (
    SELECT rowid FROM ${durable} WHERE scope = ? AND collection = ? AND state = ? AND state_time < ?
    ORDER BY state_time, key LIMIT ?)`,
  /**
   * What `purge` with the same parameters would delete, counted along the state-time index.
   * (scope, collection, state, olderThan, limit) → { n }.
   */
  countOlder: `SELECT count(*) AS n FROM (
    SELECT 1 FROM ${durable} WHERE scope = ? AND collection = ? AND state = ? AND state_time < ? LIMIT ?)`,
  /** () → { scope } rows of every scope holding entries, from the counts (a few rows, not a scan). */
  scopes: `SELECT DISTINCT scope FROM ${durableCounts} WHERE n > 0 ORDER BY scope`,
} as const

/** The store's statements. */
export const STORE_SQL = {
  /** (scope, chatId, key) → { value } or none. */
  getUser: `SELECT value FROM ${users} WHERE scope = ? AND chat_id = ? AND key = ?`,
  /** (scope, chatId, key, value, updatedAt) → upserts. */
  setUser: `INSERT INTO ${users} (scope, chat_id, key, value, updated_at) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (scope, chat_id, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
  /** (scope, chatId) → { value } or none. */
  getCheckpoint: `SELECT value FROM ${checkpoints} WHERE scope = ? AND chat_id = ?`,
  /** (scope, chatId, value, updatedAt) → upserts. */
  setCheckpoint: `INSERT INTO ${checkpoints} (scope, chat_id, value, updated_at) VALUES (?, ?, ?, ?)
    ON CONFLICT (scope, chat_id) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
  /** (scope, chatId) → deletes the checkpoint if any. */
  deleteCheckpoint: `DELETE FROM ${checkpoints} WHERE scope = ? AND chat_id = ?`,
  /** (scope, chatId, direction, messageId, text, at, ref) → appends one log line. */
  appendLog: `INSERT INTO ${messageLog} (scope, chat_id, direction, message_id, text, at, ref) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  /**
   * Trims a chat's log to its newest lines: deletes every line at or before the one `keep` places
   * from the newest. (scope, chatId, scope, chatId, keep) → changes = lines deleted.
   */
  trimLog: `DELETE FROM ${messageLog} WHERE scope = ? AND chat_id = ? AND id <= (
    SELECT id FROM ${messageLog} WHERE scope = ? AND chat_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)`,
  /** (scope, chatId, limit) → the newest `limit` LogRows, oldest first. */
  listLog: `SELECT direction, chat_id, message_id, text, at, ref FROM (
    SELECT id, direction, chat_id, message_id, text, at, ref FROM ${messageLog} WHERE scope = ? AND chat_id = ?
    ORDER BY id DESC LIMIT ?) ORDER BY id`,
} as const

/** A row of `durable` as the entry statements select it. */
export interface EntryRow {
  key: string
  version: number
  value: string
  state: string
  state_time: number
  due: number | null
}

/** A row of the message log as `listLog` selects it. */
export interface LogRow {
  direction: 'in' | 'out'
  chat_id: string
  message_id: string | null
  text: string | null
  at: number
  ref: string | null
}

type Prepared<T> = { [K in keyof T]: BetterSqlite3.Statement }

/** The journals' statements, prepared on one connection. */
export type DurableStatements = Prepared<typeof DURABLE_SQL>
/** The store's statements, prepared on one connection. */
export type StoreStatements = Prepared<typeof STORE_SQL>

/** Prepares every statement of a group on `db` (SQLite compiles each once per connection). */
export function prepareAll<T extends Record<string, string>>(db: BetterSqlite3.Database, sql: T): Prepared<T> {
  return Object.fromEntries(Object.entries(sql).map(([name, text]) => [name, db.prepare(text)])) as Prepared<T>
}
