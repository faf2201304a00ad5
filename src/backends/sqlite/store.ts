/**
 * `SQLiteStore`: the bot's store (per-chat user data, flow checkpoints, the message log) in one
 * SQLite file, whose schema also holds the journals' `durable` table. `store.durability()` hands
 * out the journals on the same connection. The store reads and writes only its `store_*` tables.
 *
 * Its writes go through the connection's group commit with the journals' (connection.ts): the
 * message log's lines, checkpoints and user data of messages in flight share their transaction and
 * fsync instead of one each, which blocked the event loop. A read waits only for the queued writes
 * of what it reads (a chat's checkpoint, a user key, a chat's log), so it sees them, and never
 * holds up on the rest of the batch.
 */
import {
  type Json,
  listedLines,
  MessageLogTrims,
  messageLogMaxOf,
  optionNames,
  refuseUnknownOptions,
  type MessageLogEntry,
  type Store,
} from '../../core/backend-internals.js'
import { SQLiteConnection } from './connection.js'
import { SQLITE_MISPLACED, SQLiteDurability } from './durability.js'
import { sqliteFailure } from './failures.js'
import type { SQLiteTimeouts } from './limits.js'
import type { LogRow, StoreStatements } from './statements.js'

/** Options of `SQLiteStore`. */
export interface SQLiteStoreOptions extends SQLiteTimeouts {
  /** The database file, e.g. './data/bot.db' (created, with its directory, if missing). */
  file: string
  /**
   * Lines kept per chat in the message log; older ones are trimmed (every MESSAGE_LOG_LIMITS.trimEvery
   * appends of a chat; `listLog` never returns more than this). 0 keeps every line. @default 1000
   */
  messageLogMax?: number
}

const OWNER = 'SQLiteStore'

/** The names `new SQLiteStore(…)` takes. */
const SQLITE_STORE_OPTION_NAMES = optionNames<SQLiteStoreOptions>({ file: true, busyTimeoutMs: true, messageLogMax: true })

/** The bot's store in a SQLite file. */
export class SQLiteStore implements Store {
  /** With `durability.encryption` the bot seals what it keeps here. */
  readonly sealable = true
  /** The database file. */
  readonly file: string
  readonly #connection: SQLiteConnection
  readonly #messageLogMax: number
  #durability: SQLiteDurability | undefined
  /** The last write queued of each thing the store keeps, until it committed: what a read of it waits for. */
  readonly #queued = new Map<string, Promise<unknown>>()
  readonly #trims = new MessageLogTrims()

  constructor(options: SQLiteStoreOptions) {
    refuseUnknownOptions('SQLiteStore', options, SQLITE_STORE_OPTION_NAMES, SQLITE_MISPLACED)
    this.#connection = new SQLiteConnection(options)
    this.file = this.#connection.file
    this.#messageLogMax = messageLogMaxOf(options.messageLogMax)
  }

  /** Opens the file and creates the schema (store tables and `durable`). Idempotent. */
  async start(): Promise<void> {
    await this.#connection.acquire(this, OWNER, 'store')
  }

  /** Lets go of the file; it closes once the journals have stopped too. Idempotent. */
  async stop(): Promise<void> {
    this.#connection.release(this)
  }

  /**
   * The journals in this file, on this store's connection (always the same instance). The bot
   * starts and stops it on its own; the file stays open until both are stopped.
   */
  durability(): SQLiteDurability {
    this.#durability ??= new SQLiteDurability({ file: this.file }, this.#connection)
    return this.#durability
  }

  async getUser(scope: string, chatId: string, key: string): Promise<Json | undefined> {
    await this.#written(userKey(scope, chatId, key))
    return this.#run('reading user data', (s) => parse(s.getUser.get(scope, chatId, key)))
  }

  async setUser(scope: string, chatId: string, key: string, value: Json): Promise<void> {
    const text = encode(value, `user data "${key}"`)
    const at = Date.now()
    return this.#write('writing user data', userKey(scope, chatId, key), 1, (s) => s.setUser.run(scope, chatId, key, text, at))
  }

  async getCheckpoint(scope: string, chatId: string): Promise<Json | undefined> {
    await this.#written(checkpointKey(scope, chatId))
    return this.#run('reading a checkpoint', (s) => parse(s.getCheckpoint.get(scope, chatId)))
  }

  async setCheckpoint(scope: string, chatId: string, checkpoint: Json): Promise<void> {
    const text = encode(checkpoint, `the checkpoint of chat "${chatId}"`)
    const at = Date.now()
    return this.#write('writing a checkpoint', checkpointKey(scope, chatId), 1, (s) => s.setCheckpoint.run(scope, chatId, text, at))
  }

  async deleteCheckpoint(scope: string, chatId: string): Promise<void> {
    return this.#write('deleting a checkpoint', checkpointKey(scope, chatId), 1, (s) => s.deleteCheckpoint.run(scope, chatId))
  }

  async appendLog(scope: string, entry: MessageLogEntry): Promise<void> {
    const max = this.#messageLogMax
    const key = logKey(scope, entry.chatId)
    const trim = max > 0 && this.#trims.due(key)
    return this.#write('appending to the message log', key, 2, (s) => {
      s.appendLog.run(scope, entry.chatId, entry.direction, entry.messageId, entry.text, entry.at, entry.ref)
      if (trim) s.trimLog.run(scope, entry.chatId, scope, entry.chatId, max)
    })
  }

  async listLog(scope: string, chatId: string, limit: number): Promise<MessageLogEntry[]> {
    await this.#written(logKey(scope, chatId))
    const newest = listedLines(limit, this.#messageLogMax)
    return this.#run('reading the message log', (s) =>
      (s.listLog.all(scope, chatId, newest) as LogRow[]).map((row) => ({
        direction: row.direction,
        chatId: row.chat_id,
        messageId: row.message_id,
        text: row.text,
        at: row.at,
        ref: row.ref,
      })),
    )
  }

  /**
   * Queues a write in the connection's group commit (`ops`: its statements, for the batch's size);
   * resolves once it is committed. Until then a read of `key` waits for it.
   */
  #write(what: string, key: string, ops: number, apply: (statements: StoreStatements) => unknown): Promise<void> {
    this.#connection.database(this, OWNER) // NOT_STARTED before start() and after stop()
    const connection = this.#connection
    const file = this.file
    const written = connection.commits.submit(
      {
        apply: (db) => apply(connection.storeStatements(db)),
        failure: (error) => sqliteFailure(error, file, what, 'store'),
      },
      ops,
    )
    this.#queued.set(key, written)
    const forget = () => {
      if (this.#queued.get(key) === written) this.#queued.delete(key)
    }
    written.then(forget, forget)
    return written as Promise<void>
  }

  /** Resolves once the queued writes of `key` (the last one, committed after the others) are committed or failed. */
  #written(key: string): Promise<unknown> | undefined {
    return this.#queued.get(key)?.then(noop, noop)
  }

  /** A read, on the connection now (a write goes through `#write`), mapping driver errors. */
  #run<T>(what: string, read: (statements: StoreStatements) => T): T {
    const db = this.#connection.database(this, OWNER)
    try {
      return read(this.#connection.storeStatements(db))
    } catch (error) {
      throw sqliteFailure(error, this.file, what, 'store')
    }
  }
}

function encode(value: Json, what: string): string {
  const text = JSON.stringify(value)
  if (text === undefined) throw new RangeError(`${what} cannot be encoded as JSON`)
  return text
}

function parse(row: unknown): Json | undefined {
  return row === undefined ? undefined : (JSON.parse((row as { value: string }).value) as Json)
}

const noop = (): void => {}

/** What a write changes and a read reads, as one key of `#queued`. */
const userKey = (scope: string, chatId: string, key: string) => `user\u0000${scope}\u0000${chatId}\u0000${key}`
const checkpointKey = (scope: string, chatId: string) => `checkpoint\u0000${scope}\u0000${chatId}`
const logKey = (scope: string, chatId: string) => `log\u0000${scope}\u0000${chatId}`
