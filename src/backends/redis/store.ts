/**
 * `RedisStore`: the bot's `Store` (user data, flow checkpoints, the message log) in Redis, under
 * the same prefix as the journals but in keys of its own (`<prefix>:store:…`, keys.ts) that the
 * durability never touches, and that never touch the durability's. `store.durability()` hands out
 * a `RedisDurability` sharing this store's connection.
 */
import { type Json, refuseUnknownOptions, type MessageLogEntry, type Store } from '../../core/backend-internals.js'
import { ConfigError } from '../../core/errors/errors.js'
import { RedisConnection, type RedisClient, type RedisConnectionOptions } from './connection.js'
import { REDIS_MISPLACED, REDIS_OPTION_NAMES, RedisDurability } from './durability.js'
import { RedisKeys } from './keys.js'
import { checkServer } from './server-checks.js'
import { REDIS_LIMITS } from './limits.js'
import { APPEND_LOG, runScript } from './scripts.js'

/** Options of `RedisStore`: how to reach Redis (exactly one of `client`, `url`, `cluster`), the prefix and the log cap. */
export type RedisStoreOptions = RedisConnectionOptions & {
  /** Prefix of every key, the journals' included. @default 'botmesh' */
  prefix?: string
  /** Entries kept per chat in the message log; older ones are trimmed. @default REDIS_LIMITS.messageLogMax (1000) */
  messageLogMax?: number
}

/** A bot's store in Redis or Redis Cluster. */
export class RedisStore implements Store {
  /** With `durability.encryption` the bot seals what it keeps here. */
  readonly sealable = true
  readonly #connection: RedisConnection
  readonly #keys: RedisKeys
  readonly #messageLogMax: number
  #durability: RedisDurability | undefined
  #started = false

  constructor(options: RedisStoreOptions) {
    refuseUnknownOptions(
      'RedisStore',
      options,
      [...REDIS_OPTION_NAMES.filter((name) => name !== 'connection' && name !== 'mustExist'), 'messageLogMax'],
      REDIS_MISPLACED,
    )
    this.#connection = new RedisConnection(options)
    this.#keys = new RedisKeys(options.prefix)
    this.#messageLogMax = options.messageLogMax ?? REDIS_LIMITS.messageLogMax
    if (!Number.isInteger(this.#messageLogMax) || this.#messageLogMax < 1) {
      throw new ConfigError(`messageLogMax must be a positive integer, got ${options.messageLogMax}`)
    }
  }

  /** The journals in the same Redis, under the same prefix, over this store's connection (one instance per store). */
  durability(): RedisDurability {
    this.#durability ??= new RedisDurability({ connection: this.#connection, prefix: this.#keys.prefix })
    return this.#durability
  }

  /** Opens the connection (shared with `durability()`, which opens it too if it starts first). Idempotent. */
  async start(): Promise<void> {
    if (this.#started) return
    await this.#connection.acquire('store')
    try {
      await checkServer(this.#connection, 'store')
    } catch (error) {
      await this.#connection.release()
      throw error
    }
    this.#started = true
  }

  /** Releases the connection; it closes once the durability has stopped too. Idempotent. */
  async stop(): Promise<void> {
    if (!this.#started) return
    this.#started = false
    await this.#connection.release()
  }

  async getUser(scope: string, chatId: string, key: string): Promise<Json | undefined> {
    return parse(await this.#run('read user data', (client) => client.hget(this.#keys.storeUser(scope, chatId), key)))
  }

  async setUser(scope: string, chatId: string, key: string, value: Json): Promise<void> {
    await this.#run('write user data', (client) => client.hset(this.#keys.storeUser(scope, chatId), key, JSON.stringify(value)))
  }

  async getCheckpoint(scope: string, chatId: string): Promise<Json | undefined> {
    return parse(await this.#run('read a checkpoint', (client) => client.get(this.#keys.storeCheckpoint(scope, chatId))))
  }

  async setCheckpoint(scope: string, chatId: string, checkpoint: Json): Promise<void> {
    await this.#run('write a checkpoint', (client) => client.set(this.#keys.storeCheckpoint(scope, chatId), JSON.stringify(checkpoint)))
  }

  async deleteCheckpoint(scope: string, chatId: string): Promise<void> {
    await this.#run('delete a checkpoint', (client) => client.del(this.#keys.storeCheckpoint(scope, chatId)))
  }

  /** Appends and trims in one script call, so the log never grows past `messageLogMax`. */
  async appendLog(scope: string, entry: MessageLogEntry): Promise<void> {
    const key = this.#keys.storeLog(scope, entry.chatId)
    await this.#run('append to the message log', (client) =>
      runScript(client, APPEND_LOG, [key], [JSON.stringify(entry), this.#messageLogMax]),
    )
  }

  async listLog(scope: string, chatId: string, limit: number): Promise<MessageLogEntry[]> {
    if (limit <= 0) return []
    const lines = await this.#run('read the message log', (client) => client.lrange(this.#keys.storeLog(scope, chatId), -limit, -1))
    return lines.map((line) => JSON.parse(line) as MessageLogEntry)
  }

  #run<T>(what: string, call: (client: RedisClient) => Promise<T>): Promise<T> {
    return this.#connection.run(what, 'store', call)
  }
}

function parse(text: string | null): Json | undefined {
  return text === null ? undefined : (JSON.parse(text) as Json)
}
