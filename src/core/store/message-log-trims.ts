/**
 * The message log's bound, one rule for every store: `messageLogMax` lines kept per chat (0 keeps
 * every line), and, for a database, when a chat's log is trimmed. A database's trim walks the
 * chat's newest `messageLogMax` lines, so it runs on the first append a store sees of a chat and
 * then once every MESSAGE_LOG_LIMITS.trimEvery appends, not on each (on every append it was a fifth
 * of a message's CPU in the README's setup): a chat holds at most messageLogMax + trimEvery - 1
 * lines, and the store's `listLog` never returns more than messageLogMax.
 */
import { ConfigError } from '../errors/errors.js'

/** The message log's limits, named, with their defaults. */
export const MESSAGE_LOG_LIMITS = {
  /** Lines a chat's message log keeps by default. */
  max: 1_000,
  /** Appends to one chat's log between two trims of it by a database store. */
  trimEvery: 100,
  /** Chats whose appends since their last trim a store counts; past it the counts start over (each chat trims on its next append). */
  trimChatsMax: 10_000,
} as const

/** `messageLogMax` as given (MESSAGE_LOG_LIMITS.max when absent), refused unless a whole number >= 0. */
export function messageLogMaxOf(given: number | undefined): number {
  const max = given ?? MESSAGE_LOG_LIMITS.max
  if (!Number.isInteger(max) || max < 0) throw new ConfigError(`messageLogMax must be a whole number >= 0, got ${given}`)
  return max
}

/** When a database store trims a chat's message log. */
export class MessageLogTrims {
  /** Appends to each chat's log since this store last trimmed it. */
  readonly #appendsSinceTrim = new Map<string, number>()

  /** Whether this append to the log of `chat` (scope and chat, as the store keys them) trims it. */
  due(chat: string): boolean {
    const appends = this.#appendsSinceTrim.get(chat)
    if (appends !== undefined && appends + 1 < MESSAGE_LOG_LIMITS.trimEvery) {
      this.#appendsSinceTrim.set(chat, appends + 1)
      return false
    }
    if (appends === undefined && this.#appendsSinceTrim.size >= MESSAGE_LOG_LIMITS.trimChatsMax) this.#appendsSinceTrim.clear()
    this.#appendsSinceTrim.set(chat, 0)
    return true
  }
}

/** How many of a chat's newest lines `listLog(limit)` returns: never past messageLogMax (lines waiting for a trim stay unlisted). */
export function listedLines(limit: number, max: number): number {
  return max > 0 ? Math.min(limit, max) : limit
}
