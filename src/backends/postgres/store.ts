/**
 * `PostgresStore`: the bot's store (user data, flow checkpoints, the message log) in PostgreSQL,
 * in tables of its own (`{tablePrefix}users`, `{tablePrefix}checkpoints`,
 * `{tablePrefix}message_log`). `store.durability()` gives the journals on the same pool; the pool
 * (when the store created it) ends when both the store and its durability have stopped.
 */
import {
  type Json,
  listedLines,
  MessageLogTrims,
  messageLogMaxOf,
  refuseUnknownOptions,
  type MessageLogEntry,
  type Store,
} from '../../core/backend-internals.js'
import { StoreUnavailableError } from '../../core/errors/errors.js'
import { PostgresConnection, type PostgresConnectionOptions } from './connection.js'
import { POSTGRES_MISPLACED, POSTGRES_OPTION_NAMES, PostgresDurability } from './durability.js'
import * as sql from './store-statements.js'
import { storeTables, TABLE_PREFIX_DEFAULT, type StoreTables } from './tables.js'
import { isUnavailable, unavailableMessage } from './failures.js'
import { runCheckingPersistence } from './persistence-check.js'

/** Options of `PostgresStore`: as `PostgresDurability`'s (one of `pool` and `connectionString`). */
export interface PostgresStoreOptions extends PostgresConnectionOptions {
  /** Prefix of the table names; letters, digits and underscores. @default 'botmesh_' */
  tablePrefix?: string
  /**
   * Lines kept per chat in the message log; older ones are trimmed (on a chat's first append and
   * every MESSAGE_LOG_LIMITS.trimEvery; `listLog` never returns more than this). 0 keeps every line. @default 1000
   */
  messageLogMax?: number
}

interface LogRow {
  chat_id: string
  direction: 'in' | 'out'
  message_id: string | null
  text: string | null
  at: number
  ref: string | null
}

/** A store in PostgreSQL: survives a restart, shared by replicas. */
export class PostgresStore implements Store {
  /** With `durability.encryption` the bot seals what it keeps here. */
  readonly sealable = true
  /** The connection (pool) shared with `durability()`. */
  readonly connection: PostgresConnection
  /** The quoted names of the store's tables, built from `tablePrefix` (default `botmesh_`). */
  readonly tables: StoreTables
  readonly #tablePrefix: string
  #durability: PostgresDurability | undefined
  readonly #messageLogMax: number
  readonly #trims = new MessageLogTrims()
  /** Set while started (or starting), so concurrent and repeated starts share one. */
  #starting: Promise<void> | undefined

  constructor(options: PostgresStoreOptions) {
    refuseUnknownOptions(
      'PostgresStore',
      options,
      [...POSTGRES_OPTION_NAMES.filter((name) => name !== 'mustExist'), 'messageLogMax'],
      POSTGRES_MISPLACED,
    )
    this.#tablePrefix = options.tablePrefix ?? TABLE_PREFIX_DEFAULT
    this.#messageLogMax = messageLogMaxOf(options.messageLogMax)
    this.tables = storeTables(this.#tablePrefix)
    this.connection = new PostgresConnection(options)
  }

  /** Opens the pool (our own) and creates the store's tables if missing. Idempotent. */
  async start(): Promise<void> {
    this.#starting ??= this.#open().catch((error: unknown) => {
      this.#starting = undefined
      throw error
    })
    await this.#starting
  }

  /** Gives the pool back; a pool the store created ends once its durability has stopped too. Idempotent. */
  async stop(): Promise<void> {
    const starting = this.#starting
    if (!starting) return
    this.#starting = undefined
    // A start that failed gave its share back already.
    if (
      await starting.then(
        () => true,
        () => false,
      )
    )
      await this.connection.release()
  }

  async #open(): Promise<void> {
    await this.connection.acquire()
    try {
      await runCheckingPersistence(this.connection, sql.STORE_SCHEMA(this.tables), (text) => this.#query(text))
    } catch (error) {
      await this.connection.release()
      throw error
    }
  }

  /** The journals on the same server, pool and table prefix (the bot starts and stops them). */
  durability(): PostgresDurability {
    this.#durability ??= new PostgresDurability({ tablePrefix: this.#tablePrefix }, this.connection)
    return this.#durability
  }

  async getUser(scope: string, chatId: string, key: string): Promise<Json | undefined> {
    const { rows } = await this.#query<{ value: string }>(sql.SELECT_USER(this.tables), [scope, chatId, key])
    return rows[0] ? (JSON.parse(rows[0].value) as Json) : undefined
  }

  async setUser(scope: string, chatId: string, key: string, value: Json): Promise<void> {
    await this.#query(sql.UPSERT_USER(this.tables), [scope, chatId, key, JSON.stringify(value)])
  }

  async getCheckpoint(scope: string, chatId: string): Promise<Json | undefined> {
    const { rows } = await this.#query<{ value: string }>(sql.SELECT_CHECKPOINT(this.tables), [scope, chatId])
    return rows[0] ? (JSON.parse(rows[0].value) as Json) : undefined
  }

  async setCheckpoint(scope: string, chatId: string, checkpoint: Json): Promise<void> {
    await this.#query(sql.UPSERT_CHECKPOINT(this.tables), [scope, chatId, JSON.stringify(checkpoint)])
  }

  async deleteCheckpoint(scope: string, chatId: string): Promise<void> {
    await this.#query(sql.DELETE_CHECKPOINT(this.tables), [scope, chatId])
  }

  async appendLog(scope: string, entry: MessageLogEntry): Promise<void> {
    await this.#query(sql.INSERT_LOG(this.tables), [scope, entry.chatId, entry.direction, entry.messageId, entry.text, entry.at, entry.ref])
    const max = this.#messageLogMax
    if (max > 0 && this.#trims.due(JSON.stringify([scope, entry.chatId])))
      await this.#query(sql.TRIM_LOG(this.tables), [scope, entry.chatId, max])
  }

  async listLog(scope: string, chatId: string, limit: number): Promise<MessageLogEntry[]> {
    if (limit <= 0) return []
    const { rows } = await this.#query<LogRow>(sql.SELECT_LOG(this.tables), [scope, chatId, listedLines(limit, this.#messageLogMax)])
    return rows.map((row) => ({
      direction: row.direction,
      chatId: row.chat_id,
      messageId: row.message_id,
      text: row.text,
      at: row.at,
      ref: row.ref,
    }))
  }

  /** Runs a statement; a lost or unreachable server becomes a retryable `StoreUnavailableError`. */
  async #query<R extends object>(text: string, values?: unknown[]) {
    try {
      return await this.connection.query<R & Record<string, unknown>>(values ? { text, values } : text)
    } catch (error) {
      if (!isUnavailable(error)) throw error
      throw new StoreUnavailableError(unavailableMessage(this.connection.target, error, this.connection.statementTimeoutMs), error)
    }
  }
}
