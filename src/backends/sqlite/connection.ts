/**
 * One connection to a SQLite file, shared by the components that use it (a `SQLiteStore` and the
 * `SQLiteDurability` it hands out). Each component acquires it in its `start()` and releases it in
 * its `stop()`; the file is opened by the first acquire and closed by the last release, so the bot
 * may stop the store and the journals in any order, as often as it likes.
 *
 * Every write of the file goes through the connection's one group commit (`commits`): the
 * journals' compare-and-sets and the store's checkpoints, user data and message log made at the
 * same time share one transaction, and so one fsync.
 */
import { closeSync, mkdirSync, openSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import type BetterSqlite3 from 'better-sqlite3'
import { BotmeshError, ConfigError, ERROR_CODES } from '../../core/errors/errors.js'
import { loadDriver } from './driver.js'
import type { FailureRole } from '../common/failure-role.js'
import { sqliteFailure } from './failures.js'
import { SQLITE_LIMITS, type SQLiteTimeouts } from './limits.js'
import { assertJournalPresent } from './presence.js'
import { assertDurableShape, createSchema } from './schema.js'
import { commitCalls, type WriteCall } from './batch-commit.js'
import { WriteBatcher } from './write-batcher.js'
import { DURABLE_SQL, STORE_SQL, prepareAll, type DurableStatements, type StoreStatements } from './statements.js'

/** Where the connection goes. */
export interface SQLiteConnectionOptions extends SQLiteTimeouts {
  /** The database file; its directory is created if missing. */
  file: string
  /**
   * The first open refuses a file without a journal (`JOURNAL_MISSING`) instead of creating the
   * file and the schema: for tools that read. @default false
   */
  mustExist?: boolean
}

/** A reference-counted connection: opened by the first holder, closed by the last. */
export class SQLiteConnection {
  /** The file as given. */
  readonly file: string
  readonly busyTimeoutMs: number
  readonly mustExist: boolean
  #db: BetterSqlite3.Database | undefined
  #opening: Promise<void> | undefined
  readonly #holders = new Set<object>()
  #durable: DurableStatements | undefined
  #store: StoreStatements | undefined
  /** The group commit of every write of the file, journal and store (batch-commit.ts). */
  readonly commits = new WriteBatcher<WriteCall, unknown>((calls) => commitCalls(this.#opened(), calls), SQLITE_LIMITS.groupCommitOpsMax)

  constructor(options: SQLiteConnectionOptions) {
    if (typeof options?.file !== 'string' || options.file.trim() === '')
      throw new ConfigError('SQLite needs a file: pass { file: "./data/bot.db" }')
    this.file = options.file
    this.busyTimeoutMs = options.busyTimeoutMs ?? SQLITE_LIMITS.busyTimeoutMs
    this.mustExist = options.mustExist === true
    if (!Number.isInteger(this.busyTimeoutMs) || this.busyTimeoutMs < 0) {
      throw new ConfigError(`busyTimeoutMs must be a whole number of milliseconds >= 0, got ${options.busyTimeoutMs}`)
    }
  }

  /** Opens the file (once) for `holder`. Idempotent per holder. */
  async acquire(holder: object, owner: string, role: FailureRole): Promise<void> {
    this.#holders.add(holder)
    if (this.#db) return
    this.#opening ??= this.#open(owner, role).finally(() => {
      this.#opening = undefined
    })
    try {
      await this.#opening
    } catch (error) {
      this.#holders.delete(holder)
      throw error
    }
  }

  /** Lets go of the connection for `holder`; the last holder closes it. Idempotent per holder. */
  release(holder: object): void {
    if (!this.#holders.delete(holder)) return
    this.#closeIfUnused()
  }

  /** The open database, for a holder that acquired it; otherwise a `NOT_STARTED` error. */
  database(holder: object, owner: string): BetterSqlite3.Database {
    if (!this.#db || !this.#holders.has(holder)) {
      throw new BotmeshError(ERROR_CODES.NOT_STARTED, `${owner} on ${this.file} is not started: call start() first (the bot does it)`)
    }
    return this.#db
  }

  /** The open database for a commit: a write queued while the file closed fails with NOT_STARTED. */
  #opened(): BetterSqlite3.Database {
    if (!this.#db) throw new BotmeshError(ERROR_CODES.NOT_STARTED, `${this.file} was closed before the write could commit`)
    return this.#db
  }

  /** The journals' prepared statements (prepared on first use of each opening). */
  durableStatements(db: BetterSqlite3.Database): DurableStatements {
    return (this.#durable ??= prepareAll(db, DURABLE_SQL))
  }

  /** The store's prepared statements (prepared on first use of each opening). */
  storeStatements(db: BetterSqlite3.Database): StoreStatements {
    return (this.#store ??= prepareAll(db, STORE_SQL))
  }

  async #open(owner: string, role: FailureRole): Promise<void> {
    const Database = await loadDriver(owner)
    if (this.mustExist) assertJournalPresent(Database, this.file, this.busyTimeoutMs)
    prepareFile(this.file)
    let db: BetterSqlite3.Database
    try {
      db = new Database(this.file, { timeout: this.busyTimeoutMs })
    } catch (error) {
      throw sqliteFailure(error, this.file, 'opening the database', role)
    }
    try {
      configure(db, this.file)
      createSchema(db, this.file)
      assertDurableShape(db, this.file)
    } catch (error) {
      db.close()
      throw sqliteFailure(error, this.file, 'opening the database', role)
    }
    this.#db = db
    // Every holder may have stopped while the file was opening.
    this.#closeIfUnused()
  }

  #closeIfUnused(): void {
    if (this.#holders.size > 0 || !this.#db) return
    // What is queued commits before the file closes: a caller awaiting it is answered, not left hanging.
    if (this.commits.pending > 0) this.commits.flush()
    const db = this.#db
    this.#db = undefined
    this.#durable = undefined
    this.#store = undefined
    db.close()
  }
}

/**
 * Opens an existing file without creating or changing anything (no schema, no journal mode):
 * for `verify` and `compact`, which must not repair or set up what they inspect.
 */
export async function openExisting(
  file: string,
  options: { readonly: boolean; busyTimeoutMs?: number; owner: string },
): Promise<BetterSqlite3.Database> {
  const Database = await loadDriver(options.owner)
  return new Database(file, {
    readonly: options.readonly,
    fileMustExist: true,
    timeout: options.busyTimeoutMs ?? SQLITE_LIMITS.busyTimeoutMs,
  })
}

/**
 * The connection's settings.
 *
 * - WAL, so that readers never block the writer and several processes can share the file.
 * - `synchronous = FULL`: every commit fsyncs the WAL before it returns. With NORMAL, WAL commits
 *   are not fsynced (only checkpoints are), so a power loss can roll back the last transactions
 *   that had already been acknowledged: an admitted message the provider was told we have, or a
 *   `markSent` whose loss makes the reply go out twice. An acknowledged write must survive a
 *   crash and a power loss (docs/guarantees.md), so FULL it is; group commit (kv.ts) shares one fsync between concurrent writes.
 * - The busy timeout (set by the driver's `timeout` option) makes a process wait for another's
 *   write lock instead of failing with SQLITE_BUSY.
 */
function configure(db: BetterSqlite3.Database, file: string): void {
  const mode = db.pragma('journal_mode = WAL', { simple: true })
  if (mode !== 'wal') {
    throw new BotmeshError(
      ERROR_CODES.SQLITE_WAL_UNAVAILABLE,
      `${file}: SQLite could not switch to WAL mode (it reports "${String(mode)}"); botmesh needs WAL to share the file between processes: use a local file system`,
    )
  }
  db.pragma('synchronous = FULL')
  db.pragma(`journal_size_limit = ${SQLITE_LIMITS.walSizeLimitBytes}`)
}

/**
 * Creates the file's directory (owner only) and the file itself with mode 0600 when they are
 * missing: the file holds message bodies and media references. SQLite gives the -wal and -shm
 * files the mode of the database file. An existing file keeps the mode its owner gave it.
 */
function prepareFile(file: string): void {
  mkdirSync(dirname(resolve(file)), { recursive: true, mode: 0o700 })
  try {
    closeSync(openSync(file, 'a', 0o600))
  } catch (error) {
    const code = (error as { code?: string }).code
    if (code === 'EISDIR') throw new ConfigError(`${file} is a directory; SQLite needs the path of a database file`)
    throw new BotmeshError(ERROR_CODES.SQLITE_OPEN_FAILED, `cannot open ${file}: ${(error as Error).message}`, { cause: error })
  }
}
