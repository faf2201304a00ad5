/**
 * Send API failures (Messenger, Instagram) as the outbox reads them, from the Messenger Platform's
 * documented error codes: the 24-hour messaging window, recipients that cannot be reached, rate
 * limits, attachments over the size limit or of a kind the platform refuses; an expired token and
 * other rejections are final, server errors are retried. No message carries the access token.
 */
import {
  OutsideSessionWindowError,
  PayloadTooLargeError,
  type ProviderError,
  RateLimitedError,
  RecipientUnreachableError,
  UnsupportedContentError,
} from '../../../core/provider/provider-errors.js'
import { answeredError } from '../errors.js'
import { graphErrorText, type GraphErrorBody } from '../graph.js'
import { retryAfterMs } from '../http.js'

/** Subcodes of "sent outside the allowed window" (Messenger 2018278, Instagram 2534022). */
const WINDOW_CLOSED = [2018278, 2534022]
/** Codes of the recipient not being reachable (551: not available; 1545041, 2018108: not receiving from you). */
const UNREACHABLE_CODES = [551, 1545041]
/** Subcodes of no such user, or a user not receiving from the page. */
const UNREACHABLE_SUBCODES = [2018001, 2018108, 2018028, 2534014]
/** Rate limits: application, page and send-call limits. */
const RATE_LIMITED = [4, 17, 32, 613, 80006]
/** Subcodes of attachments the platform refuses (upload failures, bad types). */
const UNSUPPORTED_SUBCODES = [2018047, 2018074, 2018008]
/** Subcodes of attachments over the size limit. */
const TOO_LARGE_SUBCODES = [2018109]

/** Maps a Send API error answer to the error the outbox acts on. */
export function messagingError(
  channel: string,
  status: number,
  body: GraphErrorBody | undefined,
  retryAfter: string | null,
  options: { secrets: readonly string[]; rateLimitRetryAfterMsDefault: number },
): ProviderError {
  const { code, error_subcode: subcode, message = '' } = body?.error ?? {}
  const what = graphErrorText(channel, status, body, options.secrets)
  const is = (list: number[], value: number | undefined) => value !== undefined && list.includes(value)
  if (is(WINDOW_CLOSED, subcode)) return new OutsideSessionWindowError(what)
  if (status === 429 || is(RATE_LIMITED, code))
    return new RateLimitedError(retryAfterMs(retryAfter, options.rateLimitRetryAfterMsDefault), what)
  if (is(UNREACHABLE_CODES, code) || is(UNREACHABLE_SUBCODES, subcode)) return new RecipientUnreachableError(what)
  if (status === 413 || is(TOO_LARGE_SUBCODES, subcode) || (code === 100 && /too long|exceed|too large|at most/i.test(message)))
    return new PayloadTooLargeError(what)
  if (is(UNSUPPORTED_SUBCODES, subcode)) return new UnsupportedContentError(what)
  return answeredError(channel, what, {
    status,
    channelCode: code,
    unauthorized: code === 190 || status === 401,
    serverError: status >= 500 || code === 1 || code === 2 || code === 1200,
    hint: 'check the access token and its permissions',
  })
}
