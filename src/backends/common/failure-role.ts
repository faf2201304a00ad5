/**
 * Which side of a backend met a failure: the durability journals or the bot's store. The engine
 * and the store retry different errors, so a connection shared by both says whose call failed.
 */
import { JournalUnavailableError, StoreUnavailableError, type BotmeshError } from '../../core/errors/errors.js'

/** The journals (`JOURNAL_UNAVAILABLE`) or the store (`STORE_UNAVAILABLE`). */
export type FailureRole = 'journal' | 'store'

/** The retryable error of `role`: nothing was changed, try again later. */
export function unavailableError(role: FailureRole, message: string, cause?: unknown): BotmeshError {
  return role === 'store' ? new StoreUnavailableError(message, cause) : new JournalUnavailableError(message, cause)
}
