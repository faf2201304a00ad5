/**
 * `SQLiteKv`: the `DurableKv` of the journals in a SQLite file, on the `durable` table.
 *
 * - Each compare-and-set is one statement (compare-and-set.ts).
 * - Writes go through the connection's group commit: the ops of one `write` call, and of calls
 *   made at the same time (the store's writes too), commit in one `BEGIN IMMEDIATE` transaction
 *   (one fsync), each call keeping its own outcome (batch-commit.ts). IMMEDIATE takes the write
 *   lock up front, where the busy timeout applies, instead of upgrading a read lock
 *   mid-transaction (which fails at once when another process wrote meanwhile).
 * - Operations take effect in the order they are called in this process: a read first commits the
 *   writes queued before it.
 * - Scopes are a column: `scope(id)` is a view on the same connection and queue.
 * - `now()` is the host clock (crash-safe-file/host-clock.ts), anchored in the file: one clock for every
 *   process sharing it, never stepped with the wall clock.
 */
import type BetterSqlite3 from 'better-sqlite3'
import { type DurableKv, type KvEntry, type KvListQuery, type KvOp, type KvWriteResult, ROOT_SCOPE } from '../../core/spi.js'
import { HOST_SOURCES, HostClock, type HostClockSources } from '../../crash-safe-file/host-clock.js'
import { sqliteAnchorStore } from './clock-anchor.js'
import { applyOp, decodeEntry, encodeOp, type EncodedOp } from './compare-and-set.js'
import { checkpoint, type SQLiteCheckpointReport } from './compact.js'
import { SQLiteConnection, type SQLiteConnectionOptions } from './connection.js'
import { sqliteFailure } from './failures.js'
import type { DurableStatements, EntryRow } from './statements.js'
import { likeContaining } from '../common/like-pattern.js'
import { verifyDatabase, type SQLiteVerifyReport } from './verify.js'

/** Options of a `SQLiteKv` that opens its own connection. */
export interface SQLiteKvOptions extends SQLiteConnectionOptions {
  /** @internal The host clock's sources: a test's stepped wall clock. @default the host's */
  clockSources?: HostClockSources
}

const OWNER = 'SQLiteDurability'

/** What a root and its scope views share. */
interface Shared {
  connection: SQLiteConnection
  /** The holder of the connection: the root view. */
  root: SQLiteKv
  clockSources: HostClockSources
  /** The clock of the current opening: anchored again after each start (the file may be a new one). */
  clock: HostClock | undefined
}

/** A `DurableKv` over the `durable` table of a SQLite file. */
export class SQLiteKv implements DurableKv {
  /** The database file. */
  readonly file: string
  readonly #shared: Shared
  readonly #scope: string

  /** A root view over a connection of its own to `source.file`. */
  constructor(source: SQLiteKvOptions)
  /** @internal A root view over a connection shared with a `SQLiteStore`, or a scope view (`scope()`). */
  constructor(source: SQLiteKvOptions | SQLiteConnection, view?: { shared: Shared; scope: string })
  constructor(source: SQLiteKvOptions | SQLiteConnection, view?: { shared: Shared; scope: string }) {
    if (view) {
      this.#shared = view.shared
      this.#scope = view.scope
    } else {
      const connection = source instanceof SQLiteConnection ? source : new SQLiteConnection(source)
      const clockSources = (!(source instanceof SQLiteConnection) && source.clockSources) || HOST_SOURCES
      this.#shared = { connection, root: this, clockSources, clock: undefined }
      this.#scope = ROOT_SCOPE
    }
    this.file = this.#shared.connection.file
  }

  /** Opens the file (root view only; views share the root's connection). Idempotent. */
  async start(): Promise<void> {
    if (!this.#isRoot) return
    await this.#shared.connection.acquire(this, OWNER, 'journal')
    this.#shared.clock = new HostClock(
      sqliteAnchorStore(() => this.#database()),
      this.#shared.clockSources,
    )
  }

  /** Lets go of the connection (root view only; it commits what is queued before the file closes). Idempotent. */
  async stop(): Promise<void> {
    if (!this.#isRoot) return
    this.#shared.connection.release(this)
  }

  /** The host clock: every process sharing the file runs on this host and reads the same one. */
  async now(): Promise<number> {
    this.#database() // NOT_STARTED before start() and after stop(), as every other call
    const clock = this.#shared.clock!
    try {
      await clock.ready()
    } catch (error) {
      throw sqliteFailure(error, this.file, 'anchoring the host clock', 'journal')
    }
    return clock.now()
  }

  async get(collection: string, keys: readonly string[]): Promise<(KvEntry | undefined)[]> {
    return this.#read('reading entries', (statements, db) =>
      // One read transaction: every key is read from the same snapshot.
      db.transaction(() =>
        keys.map((key) => {
          const row = statements.get.get(this.#scope, collection, key) as EntryRow | undefined
          return row === undefined ? undefined : decodeEntry(row, this.file, collection)
        }),
      )(),
    )
  }

  async write(ops: readonly KvOp[]): Promise<KvWriteResult[]> {
    if (ops.length === 0) return []
    this.#database() // NOT_STARTED before start() and after stop(), as every other call
    const encoded = ops.map(encodeOp)
    const scope = this.#scope
    return this.#submit('writing the journal', encoded.length, (statements) => applyOps(statements, this.file, scope, encoded))
  }

  async due(collection: string, until: number, limit: number): Promise<KvEntry[]> {
    return this.#read('reading the due index', (statements) =>
      this.#entries(statements.due.all(this.#scope, collection, until, limit), collection),
    )
  }

  async list(collection: string, query: KvListQuery): Promise<KvEntry[]> {
    const before = query.before ?? Number.MAX_VALUE
    return this.#read('listing a state', (statements) => {
      if (query.search) return this.#entries(searchRows(statements, this.#scope, collection, query, before), collection)
      const rows = query.after
        ? statements.listAfter.all(this.#scope, collection, query.state, query.after.stateTime, query.after.key, before, query.limit)
        : statements.listFirst.all(this.#scope, collection, query.state, before, query.limit)
      return this.#entries(rows, collection)
    })
  }

  async count(collection: string): Promise<Record<string, number>> {
    return this.#read('counting states', (statements) => {
      const rows = statements.count.all(this.#scope, collection) as { state: string; n: number }[]
      return Object.fromEntries(rows.map((row) => [row.state, row.n]))
    })
  }

  /**
   * A batch of retention joins the group commit like any write (its size: `limit`, so a full batch
   * goes in a transaction of its own): no flush of the queue and no transaction of its own, which
   * made two fsyncs a lane on the event loop for every pass.
   */
  async purge(collection: string, state: string, olderThan: number, limit: number): Promise<number> {
    const scope = this.#scope
    return this.#submit('purging', limit, (statements) => statements.purge.run(scope, collection, state, olderThan, limit).changes)
  }

  async countOlder(collection: string, state: string, olderThan: number, limit: number): Promise<number> {
    return this.#read('counting expired entries', (statements) => {
      const row = statements.countOlder.get(this.#scope, collection, state, olderThan, limit) as { n: number }
      return row.n
    })
  }

  /** A view of the same file holding only `scopeId`'s entries. */
  scope(scopeId: string): SQLiteKv {
    return new SQLiteKv(this.#shared.connection, { shared: this.#shared, scope: scopeId })
  }

  async scopes(): Promise<string[]> {
    return this.#read('listing scopes', (statements) => (statements.scopes.all() as { scope: string }[]).map((row) => row.scope))
  }

  /** Checkpoints the WAL into the database file and truncates it (`botmesh compact`). */
  async compact(): Promise<SQLiteCheckpointReport> {
    return this.#read('checkpointing the WAL', (_statements, db) => checkpoint(db, this.file))
  }

  /** Checks the file's integrity and the `durable` table's shape and counts (`botmesh verify`). */
  async verify(): Promise<SQLiteVerifyReport> {
    return this.#read('verifying', (_statements, db) => verifyDatabase(db, this.file))
  }

  get #isRoot(): boolean {
    return this.#shared.root === this
  }

  #database(): BetterSqlite3.Database {
    return this.#shared.connection.database(this.#shared.root, OWNER)
  }

  /**
   * Queues a write in the connection's group commit (`size`: its statements, for the batch's
   * bound); resolves with what `apply` returned once committed, mapping driver errors.
   */
  #submit<T>(what: string, size: number, apply: (statements: DurableStatements) => T): Promise<T> {
    this.#database() // NOT_STARTED before start() and after stop(), as every other call
    const { connection } = this.#shared
    const file = this.file
    const call = {
      apply: (db: BetterSqlite3.Database) => apply(connection.durableStatements(db)),
      failure: (error: unknown) => sqliteFailure(error, file, what, 'journal'),
    }
    return connection.commits.submit(call, size) as Promise<T>
  }

  /** Runs a read after committing the writes called before it, mapping driver errors. */
  #read<T>(what: string, run: (statements: DurableStatements, db: BetterSqlite3.Database) => T): T {
    const db = this.#database()
    const { commits } = this.#shared.connection
    if (commits.pending > 0) commits.flush()
    try {
      return run(this.#shared.connection.durableStatements(db), db)
    } catch (error) {
      throw sqliteFailure(error, this.file, what, 'journal')
    }
  }

  #entries(rows: unknown[], collection: string): KvEntry[] {
    return (rows as EntryRow[]).map((row) => decodeEntry(row, this.file, collection))
  }
}

/** One `write` call's ops, applied in `scope` inside the group commit's transaction. */
function applyOps(statements: DurableStatements, file: string, scope: string, ops: readonly EncodedOp[]): KvWriteResult[] {
  const results: KvWriteResult[] = new Array(ops.length)
  for (let n = 0; n < ops.length; n++) results[n] = applyOp(statements, file, scope, ops[n]!)
  return results
}

/** A search's page, filtered in the database by the search's fragments (like-pattern.ts). */
function searchRows(statements: DurableStatements, scope: string, collection: string, query: KvListQuery, before: number): unknown[] {
  // No cursor: before every entry (a state time below any, an empty key sorts first).
  const after = query.after ?? { stateTime: -Number.MAX_VALUE, key: '' }
  const patterns = JSON.stringify((query.search ?? []).map(likeContaining))
  return statements.listSearch.all(scope, collection, query.state, after.stateTime, after.key, before, patterns, query.limit)
}
