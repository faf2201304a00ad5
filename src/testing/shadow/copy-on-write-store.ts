/**
 * The store of a shadow run: reads see the bot's store as it is now, writes stay in this process's
 * memory and are seen by later reads of the same run. The store underneath is never written.
 */
import type { Json } from '../../core/durability/journal/kv.js'
import { MESSAGE_LOG_LIMITS } from '../../core/store/message-log-trims.js'
import type { MessageLogEntry, Store } from '../../core/store/store.js'

/** What was deleted, apart from what was never written. */
const DELETED = Symbol('deleted')

/** A store that reads through to `base` and keeps its own writes in memory. */
export class CopyOnWriteStore implements Store {
  readonly #users = new Map<string, Json>()
  readonly #checkpoints = new Map<string, Json | typeof DELETED>()
  readonly #logs = new Map<string, MessageLogEntry[]>()

  constructor(private readonly base: Store) {}

  /** Opens the store underneath (idempotent there); stopping it is its owner's. */
  async start(): Promise<void> {
    await this.base.start?.()
  }

  async getUser(scope: string, chatId: string, key: string): Promise<Json | undefined> {
    const id = JSON.stringify([scope, chatId, key])
    if (this.#users.has(id)) return structuredClone(this.#users.get(id))
    return this.base.getUser(scope, chatId, key)
  }

  async setUser(scope: string, chatId: string, key: string, value: Json): Promise<void> {
    this.#users.set(JSON.stringify([scope, chatId, key]), structuredClone(value))
  }

  async getCheckpoint(scope: string, chatId: string): Promise<Json | undefined> {
    const id = JSON.stringify([scope, chatId])
    if (!this.#checkpoints.has(id)) return this.base.getCheckpoint(scope, chatId)
    const checkpoint = this.#checkpoints.get(id)!
    return checkpoint === DELETED ? undefined : structuredClone(checkpoint)
  }

  async setCheckpoint(scope: string, chatId: string, checkpoint: Json): Promise<void> {
    this.#checkpoints.set(JSON.stringify([scope, chatId]), structuredClone(checkpoint))
  }

  async deleteCheckpoint(scope: string, chatId: string): Promise<void> {
    this.#checkpoints.set(JSON.stringify([scope, chatId]), DELETED)
  }

  async appendLog(scope: string, entry: MessageLogEntry): Promise<void> {
    const id = JSON.stringify([scope, entry.chatId])
    let log = this.#logs.get(id)
    if (!log) this.#logs.set(id, (log = []))
    // Bounded as every store's log is: the oldest lines of the run are dropped first.
    if (log.push({ ...entry }) > MESSAGE_LOG_LIMITS.max) log.splice(0, log.length - MESSAGE_LOG_LIMITS.max)
  }

  async listLog(scope: string, chatId: string, limit: number): Promise<MessageLogEntry[]> {
    const written = this.#logs.get(JSON.stringify([scope, chatId])) ?? []
    const earlier = written.length >= limit ? [] : await this.base.listLog(scope, chatId, limit - written.length)
    return [...earlier, ...written.slice(-limit).map((entry) => ({ ...entry }))]
  }
}
