/**
 * Gupshup failures as the outbox reads them. The API answers `{ status: 'error', message }`: an
 * invalid or opted-out destination is an unreachable recipient; the rest is read from the HTTP
 * status (429 waits). Failures Gupshup learns later (the 24-hour window, an undelivered message)
 * come as delivery reports after the send was accepted.
 */
import { RecipientUnreachableError, type ProviderError } from '../../core/provider/provider-errors.js'
import type { HttpFailure } from '../shared/http-api.js'

/** The channel's own reading of a failed answer; undefined leaves it to the HTTP status. */
export function gupshupFailure(failure: HttpFailure): ProviderError | undefined {
  const message = (failure.body as { message?: unknown } | undefined)?.message
  if (
    failure.status < 500 &&
    typeof message === 'string' &&
    /invalid destination|opted.?out|not a (valid )?whatsapp user|blocked/i.test(message)
  )
    return new RecipientUnreachableError(failure.what)
  return undefined
}
