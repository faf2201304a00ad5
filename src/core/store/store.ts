/**
 * The bot's store: per-chat user data, flow checkpoints and the message log. It is separate from
 * the durability journals (a store never touches them, and they never touch the store), but a
 * `.persistent()` flow keeps its checkpoints here, so a bot that must survive a crash uses a
 * persistent store too.
 */
import type { Json } from '../durability/journal/kv.js'
import { listedLines, MESSAGE_LOG_LIMITS, messageLogMaxOf } from './message-log-trims.js'

/** One line of the message log. */
export interface MessageLogEntry {
  /** `in` for an inbound message, `out` for a send. */
  direction: 'in' | 'out'
  /** The chat. */
  chatId: string
  /** The channel's message id (inbound) or the provider's id of the sent message (outbound). */
  messageId: string | null
  /** The text, or null for media without a caption. */
  text: string | null
  /** ms since the epoch. */
  at: number
  /** The outbox key of a send, or the inbox record id of an inbound message. */
  ref: string | null
}

/**
 * Where a bot keeps its state. Every method is scoped by the bot's scope id (`bot.durability.scope`
 * or the same derived id without durability), so bots can share a store.
 */
export interface Store {
  /**
   * Set by botmesh's own persistent stores: with `durability.encryption` the bot seals what it keeps
   * in them (message log texts, checkpoints, user data). A store of your own gets its values in clear.
   */
  readonly sealable?: boolean
  /** Opens the store (connections, schema). Idempotent. */
  start?(): Promise<void>
  /** Closes what `start` opened. Idempotent. */
  stop?(): Promise<void>
  /** The chat's user value under `key`, or undefined. */
  getUser(scope: string, chatId: string, key: string): Promise<Json | undefined>
  /** Keeps the chat's user value under `key`. */
  setUser(scope: string, chatId: string, key: string, value: Json): Promise<void>
  /** The checkpoint of the chat's persistent flow, if one waits for an answer. */
  getCheckpoint(scope: string, chatId: string): Promise<Json | undefined>
  /** Keeps the checkpoint of the chat's persistent flow. */
  setCheckpoint(scope: string, chatId: string, checkpoint: Json): Promise<void>
  /** Forgets the chat's flow checkpoint (the flow ended). */
  deleteCheckpoint(scope: string, chatId: string): Promise<void>
  /** Adds an entry to the chat's message log. */
  appendLog(scope: string, entry: MessageLogEntry): Promise<void>
  /** The chat's latest log entries, oldest first, at most `limit`. */
  listLog(scope: string, chatId: string, limit: number): Promise<MessageLogEntry[]>
}

/** Entries `MemoryStore` keeps per chat in the message log, as the SQLite and Redis stores do; older ones are dropped. */
export const MEMORY_STORE_MESSAGE_LOG_MAX = MESSAGE_LOG_LIMITS.max

/** What `new MemoryStore()` takes. */
export interface MemoryStoreOptions {
  /** Entries kept per chat in the message log, the oldest dropped first; 0 keeps every one. @default 1000 */
  messageLogMax?: number
}

/** A store in this process's memory: the default. Nothing survives a restart. */
export class MemoryStore implements Store {
  readonly #users = new Map<string, Json>()
  readonly #checkpoints = new Map<string, Json>()
  readonly #logs = new Map<string, MessageLogEntry[]>()
  readonly #messageLogMax: number

  constructor(options: MemoryStoreOptions = {}) {
    this.#messageLogMax = messageLogMaxOf(options.messageLogMax)
  }

  async getUser(scope: string, chatId: string, key: string): Promise<Json | undefined> {
    return structuredClone(this.#users.get(JSON.stringify([scope, chatId, key])))
  }

  async setUser(scope: string, chatId: string, key: string, value: Json): Promise<void> {
    this.#users.set(JSON.stringify([scope, chatId, key]), structuredClone(value))
  }

  async getCheckpoint(scope: string, chatId: string): Promise<Json | undefined> {
    const checkpoint = this.#checkpoints.get(JSON.stringify([scope, chatId]))
    return checkpoint === undefined ? undefined : structuredClone(checkpoint)
  }

  async setCheckpoint(scope: string, chatId: string, checkpoint: Json): Promise<void> {
    this.#checkpoints.set(JSON.stringify([scope, chatId]), structuredClone(checkpoint))
  }

  async deleteCheckpoint(scope: string, chatId: string): Promise<void> {
    this.#checkpoints.delete(JSON.stringify([scope, chatId]))
  }

  async appendLog(scope: string, entry: MessageLogEntry): Promise<void> {
    const key = JSON.stringify([scope, entry.chatId])
    let log = this.#logs.get(key)
    if (!log) this.#logs.set(key, (log = []))
    // Bounded like every buffer of a long-running bot, and trimmed as a database trims it
    // (MESSAGE_LOG_LIMITS.trimEvery lines at once): a shift() per append copies the whole log each time.
    const max = this.#messageLogMax
    if (log.push({ ...entry }) >= max + MESSAGE_LOG_LIMITS.trimEvery && max > 0) log.splice(0, log.length - max)
  }

  async listLog(scope: string, chatId: string, limit: number): Promise<MessageLogEntry[]> {
    const lines = listedLines(limit, this.#messageLogMax)
    const log = this.#logs.get(JSON.stringify([scope, chatId])) ?? []
    return (lines > 0 ? log.slice(-lines) : []).map((entry) => ({ ...entry }))
  }
}
