/**
 * What a failed Redis call becomes. A lost or unreachable server, a timeout and the replies a
 * server gives while it cannot serve yet (loading its AOF, a Cluster failing over) are
 * `JournalUnavailableError`s: retryable, so the engine fails closed and tries again later. Any
 * other error reply (a key of the wrong type under our prefix, a script error) is a
 * `RedisCommandError`: retrying would not help. For a `RedisStore` the retryable error is a
 * `StoreUnavailableError`.
 */
import { BotmeshError, RedisCommandError } from '../../core/errors/errors.js'
import { unavailableError, type FailureRole } from '../common/failure-role.js'

/** Error replies that mean "not now" rather than "never". */
const TRANSIENT_REPLIES = ['LOADING', 'BUSY', 'TRYAGAIN', 'CLUSTERDOWN', 'MASTERDOWN', 'READONLY', 'NOREPLICAS', 'MOVED', 'ASK']

/** Maps an error of `what` (e.g. "write to inbox") into a botmesh error; botmesh errors pass through. */
export function redisFailure(what: string, error: unknown, role: FailureRole = 'journal'): BotmeshError {
  if (error instanceof BotmeshError) return error
  const message = error instanceof Error ? error.message : String(error)
  if (isReplyError(error) && !TRANSIENT_REPLIES.some((prefix) => message.startsWith(prefix))) {
    return new RedisCommandError(what, message, error)
  }
  // ioredis's own wording for "rejected while reconnecting" names an option of its own; say what happened.
  const detail = error instanceof Error && error.name === 'MaxRetriesPerRequestError' ? 'the connection is down; reconnecting' : message
  return unavailableError(role, `Redis is unavailable (${what}): ${detail}`, error)
}

/** Rejects with the role's retryable error if `promise` has not settled within `ms`. */
export async function withDeadline<T>(what: string, ms: number, promise: Promise<T>, role: FailureRole = 'journal'): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(unavailableError(role, `Redis did not answer within ${ms} ms (${what})`)), ms)
    timer.unref()
  })
  try {
    return await Promise.race([promise, deadline])
  } finally {
    clearTimeout(timer)
  }
}

// ioredis re-exports redis-errors' ReplyError; matching by name keeps this file free of the driver.
function isReplyError(error: unknown): boolean {
  return error instanceof Error && error.name === 'ReplyError'
}
