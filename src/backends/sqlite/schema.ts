/**
 * The schema of a botmesh SQLite file: the store's tables and the `durable` table of the journals,
 * created together, idempotently, whenever a connection opens the file. Table names are defined
 * here and nowhere else.
 *
 * Ownership (a rule the code keeps, and a test checks): the store reads and writes only the
 * `store_*` tables, the durability only `durable`, `durable_counts` and `botmesh_clock`.
 */
import type BetterSqlite3 from 'better-sqlite3'
import { BotmeshError, ERROR_CODES } from '../../core/errors/errors.js'

/**
 * The schema version this code writes, kept in the `botmesh_schema` table rather than in
 * `PRAGMA user_version`, which an application sharing the file may already use for its own.
 */
export const SCHEMA_VERSION = 1

/**
 * Every table name, in one place. `durable` is the journal table of every SQLite file botmesh has
 * written: a new name would leave those journals unread, so it never changes.
 */
export const TABLES = {
  /** The journals: one row per entry of every scope and collection. */
  durable: 'durable',
  /** Entries per (scope, collection, state), kept by triggers: counts on a million rows without a scan. */
  durableCounts: 'durable_counts',
  /** The store's per-chat user data: one row per (scope, chat, key). */
  users: 'store_users',
  /** The store's flow checkpoints: one row per (scope, chat). */
  checkpoints: 'store_checkpoints',
  /** The store's message log: one row per message in or out of a chat. */
  messageLog: 'store_message_log',
  /** The schema version botmesh wrote the file with. */
  schema: 'botmesh_schema',
  /** The host clock's anchor of each boot (clock-anchor.ts), created on first use. */
  clock: 'botmesh_clock',
} as const

/** Index names, for the query-plan checks of `verify` and the tests. */
export const INDEXES = {
  /** (scope, collection, due, key) over entries with a due time: what the sweeper must look at. */
  durableDue: 'durable_due',
  /** (scope, collection, state, state_time, key): a state in time order, pages and purges. */
  durableStateTime: 'durable_state_time',
  messageLogChat: 'store_message_log_chat',
} as const

const { durable, durableCounts, users, checkpoints, messageLog, schema } = TABLES

/**
 * The journals' tables. `value` is the entry's JSON text. The row keeps its rowid (no WITHOUT
 * ROWID) because values can be large (a journaled payload up to 1 MiB), and SQLite advises
 * against WITHOUT ROWID for rows larger than a twentieth of a page.
 *
 * Counting a state by scanning even a covering index takes ~200 ms on a million rows, over the
 * 100 ms a dashboard refresh may take. So `durable_counts` holds the count of every
 * (scope, collection, state), kept by triggers in the same transaction as the write that changes
 * it: it can never disagree with `durable` (and `verify` checks that it does not).
 */
const DURABLE_DDL = `
CREATE TABLE IF NOT EXISTS ${durable} (
  scope TEXT NOT NULL,
  collection TEXT NOT NULL,
  key TEXT NOT NULL,
  version INTEGER NOT NULL,
  value TEXT NOT NULL,
  state TEXT NOT NULL,
  state_time INTEGER NOT NULL,
  due INTEGER,
  PRIMARY KEY (scope, collection, key)
);
CREATE INDEX IF NOT EXISTS ${INDEXES.durableDue} ON ${durable} (scope, collection, due, key) WHERE due IS NOT NULL;
CREATE INDEX IF NOT EXISTS ${INDEXES.durableStateTime} ON ${durable} (scope, collection, state, state_time, key);
CREATE TABLE IF NOT EXISTS ${durableCounts} (
  scope TEXT NOT NULL,
  collection TEXT NOT NULL,
  state TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (scope, collection, state)
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS ${durable}_count_insert AFTER INSERT ON ${durable} BEGIN
  INSERT INTO ${durableCounts} (scope, collection, state, n) VALUES (new.scope, new.collection, new.state, 1)
    ON CONFLICT (scope, collection, state) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER IF NOT EXISTS ${durable}_count_delete AFTER DELETE ON ${durable} BEGIN
  UPDATE ${durableCounts} SET n = n - 1 WHERE scope = old.scope AND collection = old.collection AND state = old.state;
END;
CREATE TRIGGER IF NOT EXISTS ${durable}_count_update AFTER UPDATE OF scope, collection, state ON ${durable}
  WHEN old.scope IS NOT new.scope OR old.collection IS NOT new.collection OR old.state IS NOT new.state BEGIN
  UPDATE ${durableCounts} SET n = n - 1 WHERE scope = old.scope AND collection = old.collection AND state = old.state;
  INSERT INTO ${durableCounts} (scope, collection, state, n) VALUES (new.scope, new.collection, new.state, 1)
    ON CONFLICT (scope, collection, state) DO UPDATE SET n = n + 1;
END;
`

/** The store's tables: per-chat user data, flow checkpoints and the message log. */
const STORE_DDL = `
CREATE TABLE IF NOT EXISTS ${users} (
  scope TEXT NOT NULL,
  chat_id TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (scope, chat_id, key)
);
CREATE TABLE IF NOT EXISTS ${checkpoints} (
  scope TEXT NOT NULL,
  chat_id TEXT NOT NULL,
  value TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (scope, chat_id)
);
CREATE TABLE IF NOT EXISTS ${messageLog} (
  id INTEGER PRIMARY KEY,
  scope TEXT NOT NULL,
  chat_id TEXT NOT NULL,
  direction TEXT NOT NULL CHECK (direction IN ('in', 'out')),
  message_id TEXT,
  text TEXT,
  at INTEGER NOT NULL,
  ref TEXT
);
CREATE INDEX IF NOT EXISTS ${INDEXES.messageLogChat} ON ${messageLog} (scope, chat_id, id);
`

/** One column of the `durable` table as `PRAGMA table_info` reports it. */
export interface ColumnShape {
  name: string
  type: string
  notnull: 0 | 1
  /** Position in the primary key (1-based), 0 when not part of it. */
  pk: number
}

/** The `durable` table's columns, in order: what `verify` and `open` hold the file to. */
export const DURABLE_COLUMNS: readonly ColumnShape[] = [
  { name: 'scope', type: 'TEXT', notnull: 1, pk: 1 },
  { name: 'collection', type: 'TEXT', notnull: 1, pk: 2 },
  { name: 'key', type: 'TEXT', notnull: 1, pk: 3 },
  { name: 'version', type: 'INTEGER', notnull: 1, pk: 0 },
  { name: 'value', type: 'TEXT', notnull: 1, pk: 0 },
  { name: 'state', type: 'TEXT', notnull: 1, pk: 0 },
  { name: 'state_time', type: 'INTEGER', notnull: 1, pk: 0 },
  { name: 'due', type: 'INTEGER', notnull: 0, pk: 0 },
]

/** The indexes on `durable` and the columns each must cover, in order. */
export const DURABLE_INDEXES: Readonly<Record<string, readonly string[]>> = {
  [INDEXES.durableDue]: ['scope', 'collection', 'due', 'key'],
  [INDEXES.durableStateTime]: ['scope', 'collection', 'state', 'state_time', 'key'],
}

/**
 * Creates whatever is missing of the schema, in one write transaction, and refuses a file written
 * by a newer botmesh. Skips the write lock entirely when the file is already at this version, so
 * a process opening a busy shared file does not queue behind its writers.
 */
export function createSchema(db: BetterSqlite3.Database, file: string): void {
  if (schemaVersion(db, file) === SCHEMA_VERSION) return
  db.transaction(() => {
    // Read again under the write lock: another process may have created it meanwhile.
    const version = schemaVersion(db, file)
    if (version === SCHEMA_VERSION) return
    // Creating the indexes on someone else's `durable` table would fail with a bare "no such column".
    if (tableExists(db, durable)) assertDurableShape(db, file, durableColumnProblems(db))
    db.exec(`CREATE TABLE IF NOT EXISTS ${schema} (component TEXT PRIMARY KEY, version INTEGER NOT NULL)`)
    db.exec(DURABLE_DDL)
    db.exec(STORE_DDL)
    // A `durable` table from before the counts existed (none in a release so far, but cheap to
    // honour): rebuild the counts from the rows.
    db.exec(`DELETE FROM ${durableCounts}`)
    db.exec(
      `INSERT INTO ${durableCounts} (scope, collection, state, n) SELECT scope, collection, state, count(*) FROM ${durable} GROUP BY scope, collection, state`,
    )
    db.prepare(
      `INSERT INTO ${schema} (component, version) VALUES ('sqlite-store', ?) ON CONFLICT (component) DO UPDATE SET version = excluded.version`,
    ).run(SCHEMA_VERSION)
  }).immediate()
}

/** The version botmesh's schema in the file is at; 0 for a file botmesh has not set up yet. */
export function schemaVersion(db: BetterSqlite3.Database, file: string): number {
  const row = tableExists(db, schema)
    ? (db.prepare(`SELECT version FROM ${schema} WHERE component = 'sqlite-store'`).get() as { version: number } | undefined)
    : undefined
  const version = row?.version ?? 0
  if (version > SCHEMA_VERSION) {
    throw new BotmeshError(
      ERROR_CODES.SCHEMA_TOO_NEW,
      `${file} has botmesh schema version ${version}, newer than this botmesh knows (${SCHEMA_VERSION}): upgrade botmesh to open it`,
    )
  }
  return version
}

/** Refuses to work on a file whose `durable` table botmesh did not create (`SCHEMA_MISMATCH`). */
export function assertDurableShape(db: BetterSqlite3.Database, file: string, problems = durableShapeProblems(db)): void {
  if (problems.length > 0)
    throw new BotmeshError(ERROR_CODES.SCHEMA_MISMATCH, `${file} has a durable table botmesh did not create: ${problems.join('; ')}`)
}

/** What differs between the `durable` table (and its companions) and the shape botmesh creates; empty when it matches. */
export function durableShapeProblems(db: BetterSqlite3.Database): string[] {
  const { durable, durableCounts } = TABLES
  if (!tableExists(db, durable)) return [`the ${durable} table is missing`]
  const problems = durableColumnProblems(db)
  const partial = (db.pragma(`index_list(${durable})`) as { name: string; partial: number }[]).find(
    (i) => i.name === INDEXES.durableDue,
  )?.partial
  if (partial === 0) problems.push(`the index ${INDEXES.durableDue} must be partial (WHERE due IS NOT NULL)`)
  for (const [index, wanted] of Object.entries(DURABLE_INDEXES)) {
    const have = (db.pragma(`index_info(${index})`) as { name: string }[]).map((c) => c.name)
    if (have.join(',') !== wanted.join(',')) {
      problems.push(
        have.length === 0
          ? `the index ${index} is missing`
          : `the index ${index} covers (${have.join(', ')}), expected (${wanted.join(', ')})`,
      )
    }
  }
  if (!tableExists(db, durableCounts)) problems.push(`the ${durableCounts} table is missing`)
  const triggers = (
    db.prepare(`SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?`).all(durable) as { name: string }[]
  ).map((t) => t.name)
  for (const name of ['insert', 'delete', 'update'].map((verb) => `${durable}_count_${verb}`)) {
    if (!triggers.includes(name)) problems.push(`the trigger ${name} that keeps ${durableCounts} is missing`)
  }
  return problems
}

/** How the `durable` table's columns differ from botmesh's (empty when they match). */
function durableColumnProblems(db: BetterSqlite3.Database): string[] {
  const columns = db.pragma(`table_info(${durable})`) as { name: string; type: string; notnull: number; pk: number }[]
  const found = columns.map((c) => `${c.name} ${c.type.toUpperCase()}${c.notnull ? ' NOT NULL' : ''}${c.pk ? ` pk${c.pk}` : ''}`)
  const expected = DURABLE_COLUMNS.map((c) => `${c.name} ${c.type}${c.notnull ? ' NOT NULL' : ''}${c.pk ? ` pk${c.pk}` : ''}`)
  return found.join(', ') === expected.join(', ')
    ? []
    : [`the ${durable} table has columns (${found.join(', ')}), expected (${expected.join(', ')})`]
}

/** Whether the file has a table of that name. */
export function tableExists(db: BetterSqlite3.Database, name: string): boolean {
  return db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(name) !== undefined
}
