/**
 * Discord REST failures as the outbox reads them. A rate limit (the REST client rejects instead of
 * waiting) carries its `retryAfter`; Discord's JSON error codes name recipients the bot cannot
 * reach and content it refuses; 401 is the token, 5xx and network failures are retried, any other
 * 4xx is final. No message carries the bot token.
 */
import { ERROR_CODES } from '../../core/errors/errors.js'
import {
  PayloadTooLargeError,
  ProviderError,
  RateLimitedError,
  RecipientUnreachableError,
  UnsupportedContentError,
} from '../../core/provider/provider-errors.js'
import { answeredError, ChannelApiError } from '../shared/errors.js'
import { describeError, redact } from '../shared/redact.js'

/** The REST client's failures, read structurally (the package loads lazily). */
interface RestFailure {
  name?: string
  message: string
  status?: number
  code?: number | string
  retryAfter?: number
}

/** Unknown channel or user, cannot send to this user, missing access or permissions. */
const UNREACHABLE = [10003, 10013, 50001, 50007, 50013]
/** An empty message, a file or component the API refuses. */
const UNSUPPORTED = [50006, 50046, 50035]
/** Request entity too large. */
const TOO_LARGE = [40005]

/** Maps a failure of a REST call to the error the outbox acts on. */
export function discordError(error: unknown, token: string): ProviderError {
  if (error instanceof ProviderError) return error
  const failure = (typeof error === 'object' && error !== null ? error : { message: String(error) }) as RestFailure
  const what = redact(`discord: ${describeError(error, [token])}`, [token])
  if (failure.name === 'RateLimitError' || typeof failure.retryAfter === 'number')
    return new RateLimitedError(Math.max(0, failure.retryAfter ?? 1000), what)
  const status = failure.status
  if (typeof status !== 'number') {
    const timedOut = /abort|timeout|timed out/i.test(`${failure.name} ${failure.message}`)
    return new ChannelApiError('discord', timedOut ? ERROR_CODES.CHANNEL_TIMEOUT : ERROR_CODES.CHANNEL_NETWORK, what)
  }
  const code = typeof failure.code === 'number' ? failure.code : undefined
  if (status === 429) return new RateLimitedError(1000, what)
  if (code !== undefined && UNREACHABLE.includes(code)) return new RecipientUnreachableError(what)
  if (
    status === 413 ||
    (code !== undefined && TOO_LARGE.includes(code)) ||
    /MAX_LENGTH|or fewer in length|too large/i.test(failure.message)
  )
    return new PayloadTooLargeError(what)
  if (code !== undefined && UNSUPPORTED.includes(code)) return new UnsupportedContentError(what)
  return answeredError('discord', what, { status, channelCode: code, hint: 'check the bot token' })
}
