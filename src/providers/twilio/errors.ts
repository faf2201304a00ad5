/**
 * Twilio REST failures as the outbox reads them. Twilio's documented error codes decide: the
 * WhatsApp 24-hour window (63016), unreachable or unsubscribed recipients, bodies and media the
 * channel refuses; HTTP 429 is a rate limit, 401 the credentials, 5xx and network failures are
 * retried, any other 4xx is final. No message carries the auth token.
 */
import { ERROR_CODES } from '../../core/errors/errors.js'
import {
  OutsideSessionWindowError,
  PayloadTooLargeError,
  ProviderError,
  RateLimitedError,
  RecipientUnreachableError,
  UnsupportedContentError,
} from '../../core/provider/provider-errors.js'
import { answeredError, ChannelApiError } from '../shared/errors.js'
import { describeError, redact } from '../shared/redact.js'
import { TWILIO_LIMITS } from './limits.js'

/** The shape of the library's RestException (read structurally: the library loads lazily). */
interface RestFailure {
  status: number
  code?: number
  message: string
}

const isRestFailure = (error: unknown): error is RestFailure =>
  typeof error === 'object' && error !== null && typeof (error as RestFailure).status === 'number'

/** Customer service window closed (WhatsApp, Messenger through Twilio). */
const WINDOW_CLOSED = [63016]
/** Invalid, unroutable, unsubscribed (STOP) or unknown recipients; regions not enabled. */
const UNREACHABLE = [21211, 21408, 21610, 21612, 21614, 63003, 63024]
/** Bodies over 1600 characters, media over the size limit. */
const TOO_LARGE = [21617, 11751]
/** No body or media, bad media URLs, too many media, content the channel rejects, an invalid From/To pair. */
const UNSUPPORTED = [21619, 21620, 21623, 63021, 21910]
/** Rate limits: the account's, and the WhatsApp sender's. */
const RATE_LIMITED = [20429, 63018]

/** Maps a failure of a REST call to the error the outbox acts on; `authToken` is cut from its message. */
export function twilioError(error: unknown, authToken: string): ProviderError {
  if (error instanceof ProviderError) return error
  if (!isRestFailure(error)) return noAnswer(error, authToken)
  const { status, code } = error
  const what = redact(`twilio: the REST API answered ${status}${code !== undefined ? ` (error ${code})` : ''}: ${error.message}`, [
    authToken,
  ])
  if (code !== undefined && WINDOW_CLOSED.includes(code)) return new OutsideSessionWindowError(what)
  if (status === 429 || (code !== undefined && RATE_LIMITED.includes(code)))
    return new RateLimitedError(TWILIO_LIMITS.rateLimitRetryAfterMsDefault, what)
  if (code !== undefined && UNREACHABLE.includes(code)) return new RecipientUnreachableError(what)
  if (status === 413 || (code !== undefined && TOO_LARGE.includes(code))) return new PayloadTooLargeError(what)
  if (code !== undefined && UNSUPPORTED.includes(code)) return new UnsupportedContentError(what)
  const unauthorized = status === 401 || code === 20003
  return answeredError('twilio', what, { status, channelCode: code, unauthorized, hint: 'check the account SID and auth token' })
}

/** A request that got no answer (the library's HTTP client failed): retried; it may have been accepted. */
function noAnswer(error: unknown, authToken: string): ChannelApiError {
  const code = (error as { code?: unknown } | null)?.code
  const timedOut = code === 'ECONNABORTED' || code === 'ETIMEDOUT' || /timeout/i.test(String((error as Error | null)?.message))
  return new ChannelApiError(
    'twilio',
    timedOut ? ERROR_CODES.CHANNEL_TIMEOUT : ERROR_CODES.CHANNEL_NETWORK,
    `the request ${timedOut ? 'timed out' : 'failed'}: ${describeError(error, [authToken])}`,
  )
}
