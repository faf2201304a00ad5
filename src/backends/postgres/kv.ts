/**
 * `PostgresKv`: the `DurableKv` of the PostgreSQL backend. Every entry is a row of
 * `{tablePrefix}durable`; every method is one statement (statements.ts) and one round trip.
 *
 * - Writes go through group commit (group-commit.ts): a lone call is one autocommit statement;
 *   concurrent calls share one simple-protocol message, one transaction and one commit (writes.ts),
 *   each op still its own compare-and-set with its own result.
 * - `now()` is the server's `clock_timestamp()`: leases are judged by one clock for all replicas.
 */
import { type DurableKv, type KvEntry, type KvListQuery, type KvOp, type KvWriteResult, ROOT_SCOPE } from '../../core/spi.js'
import { JournalUnavailableError } from '../../core/errors/errors.js'
import { PostgresConnection, type PostgresConnectionOptions } from './connection.js'
import { COUNTER_COLLECTION_PREFIX } from './counters.js'
import { CHAT_COLLECTION } from './steps/steps-function.js'
import { findJournal, journalMissing } from './presence.js'
import { durableSchemaSql } from './schema.js'
import { runCheckingPersistence } from './persistence-check.js'
import { prepare, type Prepared, type Statements } from './prepared.js'
import { toEntry, type EntryRow } from './entry-rows.js'
import { GroupCommit } from './group-commit.js'
import { sendBatch } from './writes.js'
import { PlannerStatistics } from './planner-statistics.js'
import { durableTables, TABLE_PREFIX_DEFAULT, type DurableTables } from './tables.js'
import { isUnavailable, unavailableMessage } from './failures.js'
import { checkKvOp } from '../common/kv-op-check.js'
import { likeContaining } from '../common/like-pattern.js'

/** Options of `PostgresKv` (and `PostgresDurability`). */
export interface PostgresKvOptions extends PostgresConnectionOptions {
  /** Prefix of the table names; letters, digits and underscores. @default 'botmesh_' */
  tablePrefix?: string
  /**
   * `start()` refuses a prefix whose table does not exist (`JOURNAL_MISSING`, naming the table
   * prefixes that have one) and creates nothing: for tools that read. @default false
   */
  mustExist?: boolean
}

/** A `DurableKv` in PostgreSQL, with scopes. */
export class PostgresKv implements DurableKv {
  /** The connection (pool) this store talks through. */
  readonly connection: PostgresConnection
  /** The table names. */
  readonly tables: DurableTables
  readonly #statements: Statements
  readonly #scope: string
  /** Views (from `scope()`) leave start and stop to the root. */
  readonly #isView: boolean
  readonly #mustExist: boolean
  /** Set while started (or starting), so concurrent and repeated starts share one. */
  #starting: Promise<void> | undefined
  /** Shared by the root and its views, so writes of every scope commit together. */
  readonly #group: GroupCommit
  /** Shared by the root and its views: analyzes the table as this process grows it. */
  readonly #statistics: PlannerStatistics

  constructor(options: PostgresKvOptions, connection?: PostgresConnection, view?: { scope: string; of: PostgresKv }) {
    this.tables = view?.of.tables ?? durableTables(options.tablePrefix ?? TABLE_PREFIX_DEFAULT)
    this.connection = view?.of.connection ?? connection ?? new PostgresConnection(options)
    this.#statements = view ? view.of.#statements : prepare(this.tables)
    this.#group = view
      ? view.of.#group
      : new GroupCommit((calls) => sendBatch(this.#statements, (statement, values) => this.#query(statement, values), calls))
    this.#statistics = view
      ? view.of.#statistics
      : new PlannerStatistics(this.tables, async (sql) => (await this.#query(sql)).rows, this.connection.logger)
    this.#scope = view?.scope ?? ROOT_SCOPE
    this.#isView = view !== undefined
    this.#mustExist = options.mustExist === true
  }

  /** Opens the pool (our own) and creates the table and its indexes if missing (not with `mustExist`). Idempotent. */
  async start(): Promise<void> {
    if (this.#isView) return
    this.#starting ??= this.#open().catch((error: unknown) => {
      this.#starting = undefined
      throw error
    })
    await this.#starting
  }

  /** Gives the connection back; a pool we created ends with its last user. Idempotent. */
  async stop(): Promise<void> {
    const starting = this.#starting
    if (this.#isView || !starting) return
    this.#starting = undefined
    // A start that failed gave its share back already.
    if (
      await starting.then(
        () => true,
        () => false,
      )
    ) {
      await this.#statistics.settled()
      await this.connection.release()
    }
  }

  async #open(): Promise<void> {
    await this.connection.acquire()
    try {
      if (this.#mustExist) {
        const [presence] = await Promise.all([
          this.#unavailableAs(findJournal(this.connection, this.tables, this.tables.legacy.counts)),
          runCheckingPersistence(this.connection, undefined, (text) => this.#query(text)),
        ])
        if (!presence.durable) throw await this.#unavailableAs(journalMissing(this.connection, this.tables))
        // A reader leaves a journal in place as it is; only one of an older version is brought up
        // to date first, since its counts live elsewhere and would read as zero.
        if (!presence.legacyCounts) return
        await this.#query(durableSchemaSql(this.tables))
        return
      }
      await runCheckingPersistence(this.connection, durableSchemaSql(this.tables), (text) => this.#query(text))
    } catch (error) {
      await this.connection.release()
      throw error
    }
  }

  async now(): Promise<number> {
    const { rows } = await this.#query<{ now: number }>(this.#statements.SELECT_NOW, [])
    return rows[0]!.now
  }

  async get(collection: string, keys: readonly string[]): Promise<(KvEntry | undefined)[]> {
    if (keys.length === 0) return []
    const { rows } = await this.#query<EntryRow>(this.#statements.SELECT_ENTRIES, [this.#scope, collection, [...new Set(keys)]])
    const byKey = new Map(rows.map((row) => [row.key!, row]))
    return keys.map((key) => {
      const row = byKey.get(key)
      return row ? toEntry(key, row) : undefined
    })
  }

  /** Group commit (group-commit.ts): concurrent calls share a round trip and a transaction (writes.ts). */
  async write(ops: readonly KvOp[]): Promise<KvWriteResult[]> {
    for (const op of ops) checkOp(op)
    if (ops.length === 0) return []
    const results = await this.#group.write(this.#scope, ops)
    this.#statistics.noteWritten(ops, results)
    return results
  }

  /** @internal Rows the steps inserted (steps/steps.ts), so the planner's picture keeps up with them too. */
  noteInserted(rows: number): void {
    this.#statistics.noteInserted(rows)
  }

  async due(collection: string, until: number, limit: number): Promise<KvEntry[]> {
    if (limit <= 0) return []
    const { rows } = await this.#query<EntryRow>(this.#statements.SELECT_DUE, [this.#scope, collection, until, limit])
    return rows.map((row) => toEntry(row.key!, row))
  }

  async list(collection: string, query: KvListQuery): Promise<KvEntry[]> {
    if (query.limit <= 0) return []
    const before = query.before ?? Number.POSITIVE_INFINITY
    if (query.search) return this.#search(collection, query, before)
    const { rows } = query.after
      ? await this.#query<EntryRow>(this.#statements.LIST_AFTER, [
          this.#scope,
          collection,
          query.state,
          query.after.stateTime,
          query.after.key,
          before,
          query.limit,
        ])
      : await this.#query<EntryRow>(this.#statements.LIST_FIRST, [this.#scope, collection, query.state, before, query.limit])
    return rows.map((row) => toEntry(row.key!, row))
  }

  /** A search's page, filtered in the database by the search's fragments (like-pattern.ts). */
  async #search(collection: string, query: KvListQuery, before: number): Promise<KvEntry[]> {
    // No cursor: before every entry (-Infinity is below any state time).
    const after = query.after ?? { stateTime: Number.NEGATIVE_INFINITY, key: '' }
    const patterns = (query.search ?? []).map(likeContaining)
    const { rows } = await this.#query<EntryRow>(this.#statements.LIST_SEARCH, [
      this.#scope,
      collection,
      query.state,
      after.stateTime,
      after.key,
      before,
      patterns,
      query.limit,
    ])
    return rows.map((row) => toEntry(row.key!, row))
  }

  async count(collection: string): Promise<Record<string, number>> {
    const { rows } = await this.#query<{ state: string; entries: string }>(this.#statements.COUNT_STATES, [this.#scope, collection])
    return Object.fromEntries(rows.map((row) => [row.state, Number(row.entries)]))
  }

  async purge(collection: string, state: string, olderThan: number, limit: number): Promise<number> {
    if (limit <= 0) return 0
    const { rows } = await this.#query<{ purged: number }>(this.#statements.PURGE_STATE, [this.#scope, collection, state, olderThan, limit])
    return rows[0]!.purged
  }

  async countOlder(collection: string, state: string, olderThan: number, limit: number): Promise<number> {
    if (limit <= 0) return 0
    const { rows } = await this.#query<{ n: number }>(this.#statements.COUNT_OLDER, [this.#scope, collection, state, olderThan, limit])
    return rows[0]!.n
  }

  /** A view holding only one scope's entries; it shares this store's pool and tables. */
  scope(scopeId: string): PostgresKv {
    return new PostgresKv({}, undefined, { scope: scopeId, of: this })
  }

  async scopes(): Promise<string[]> {
    const { rows } = await this.#query<{ scope: string }>(this.#statements.SELECT_SCOPES, [])
    return rows.map((row) => row.scope)
  }

  /** Runs a statement; a lost or unreachable server becomes a retryable `JournalUnavailableError`. */
  #query<R extends object>(statement: Prepared | string, values?: unknown[]) {
    if (typeof statement === 'string') return this.#unavailableAs(this.connection.query<R & Record<string, unknown>>(statement))
    return this.#unavailableAs(this.connection.query<R & Record<string, unknown>>({ name: statement.name, text: statement.text, values }))
  }

  /** A lost or unreachable server becomes a retryable `JournalUnavailableError`; other errors pass. */
  async #unavailableAs<T>(work: Promise<T>): Promise<T> {
    try {
      return await work
    } catch (error) {
      if (!isUnavailable(error)) throw error
      throw new JournalUnavailableError(unavailableMessage(this.connection.target, error, this.connection.statementTimeoutMs), error)
    }
  }
}

/** Refuses ops that would store something other backends could not read back the same. @internal */
export function checkOp(op: KvOp): void {
  if (op.collection.startsWith(COUNTER_COLLECTION_PREFIX))
    throw new RangeError(`the collection "${op.collection}" is reserved for the counts (it starts with ${COUNTER_COLLECTION_PREFIX})`)
  if (op.collection === CHAT_COLLECTION) throw new RangeError(`the collection "${op.collection}" is reserved for the steps' chat lists`)
  checkKvOp(op)
  // Refused before it joins a batch, where it would fail the calls it shares a message with.
  for (const text of [op.collection, op.key, op.op === 'put' ? op.state : ''])
    if (text.includes('\u0000')) throw new RangeError(`PostgreSQL text cannot hold a NUL character (in "${op.key}")`)
}
