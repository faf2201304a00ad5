/**
 * HighLevel failures as the outbox reads them. The API answers `{ statusCode, message }`: a contact
 * that does not exist, has no phone or email for the channel, or has Do Not Disturb on cannot be
 * reached. A 429 waits `Retry-After`, or the burst window HighLevel names in
 * `X-RateLimit-Interval-Milliseconds`. The rest is read from the HTTP status.
 */
import { RateLimitedError, RecipientUnreachableError, type ProviderError } from '../../core/provider/provider-errors.js'
import type { HttpFailure } from '../shared/http-api.js'

/** The channel's own reading of a failed answer; undefined leaves it to the HTTP status. */
export function goHighLevelFailure(failure: HttpFailure): ProviderError | undefined {
  const intervalMs = Number(failure.headers.get('x-ratelimit-interval-milliseconds') ?? NaN)
  if (failure.status === 429 && !failure.headers.has('retry-after') && Number.isFinite(intervalMs) && intervalMs > 0)
    return new RateLimitedError(intervalMs, failure.what)
  const message = (failure.body as { message?: unknown } | undefined)?.message
  const text = Array.isArray(message) ? message.join('; ') : typeof message === 'string' ? message : ''
  if (
    failure.status >= 400 &&
    failure.status < 500 &&
    /contact not found|dnd|do not disturb|no (phone|email)|missing (phone|email)|unsubscribed/i.test(text)
  )
    return new RecipientUnreachableError(failure.what)
  return undefined
}
