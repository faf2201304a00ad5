/**
 * `SQLiteDurability`: the journals in the `durable` table of a SQLite file. Obtained from
 * `store.durability()` it shares the store's connection; `new SQLiteDurability({ file })` opens
 * its own. Several processes on one host may share the file (WAL and a busy timeout; every
 * compare-and-set is one statement inside an IMMEDIATE transaction, so no update is lost).
 */
import { KvDurability, optionNames, refuseUnknownOptions } from '../../core/backend-internals.js'
import type { SQLiteCheckpointReport } from './compact.js'
import type { SQLiteConnection } from './connection.js'
import { SQLiteKv } from './kv.js'
import type { SQLiteTimeouts } from './limits.js'
import type { SQLiteVerifyReport } from './verify.js'

/** Options of a `SQLiteDurability` with a connection of its own. */
export interface SQLiteDurabilityOptions extends SQLiteTimeouts {
  /** The database file (created, with its directory, if missing). */
  file: string
  /**
   * `start()` refuses a file without a journal (`JOURNAL_MISSING`, naming the tables it has)
   * and creates nothing: for tools that read. @default false
   */
  mustExist?: boolean
}

/** The names `new SQLiteDurability(…)` takes. */
const SQLITE_DURABILITY_OPTION_NAMES = optionNames<SQLiteDurabilityOptions>({ file: true, busyTimeoutMs: true, mustExist: true })

/** Options other backends, or the store, take, which a SQLite caller may pass by mistake. */
export const SQLITE_MISPLACED: Readonly<Record<string, string>> = {
  path: 'SQLite takes file: { file: "./data/bot.db" }',
  filename: 'SQLite takes file: { file: "./data/bot.db" }',
  messageLogMax: 'only SQLiteStore takes it',
  tablePrefix: "SQLite keeps the journals in its durable table; tablePrefix is PostgreSQL's",
}

/** A durability backend on a SQLite file, shared by processes on one host. */
export class SQLiteDurability extends KvDurability {
  declare readonly kv: SQLiteKv
  /** The database file. */
  readonly file: string

  /** Opens its own connection to `options.file`. */
  constructor(options: SQLiteDurabilityOptions)
  /** @internal Over the connection of a `SQLiteStore` (`SQLiteStore.durability()`). */
  constructor(options: SQLiteDurabilityOptions, connection: SQLiteConnection | undefined)
  constructor(options: SQLiteDurabilityOptions, connection?: SQLiteConnection) {
    if (!connection) refuseUnknownOptions('SQLiteDurability', options, SQLITE_DURABILITY_OPTION_NAMES, SQLITE_MISPLACED)
    const kv = new SQLiteKv(connection ?? options)
    super(kv, { kind: 'sqlite', shared: true })
    this.file = kv.file
  }

  /** Checkpoints the WAL into the database file and truncates it (`botmesh compact`). Needs `start()`. */
  compact(): Promise<SQLiteCheckpointReport> {
    return this.kv.compact()
  }

  /** Checks integrity, the `durable` table's shape and its counts (`botmesh verify`). Needs `start()`. */
  verify(): Promise<SQLiteVerifyReport> {
    return this.kv.verify()
  }
}
