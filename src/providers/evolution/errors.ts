/**
 * Evolution API failures as the outbox reads them. A number that is not on WhatsApp is answered
 * 400 with `{ exists: false }`: the recipient is unreachable. An instance whose WhatsApp
 * connection is down answers "Connection Closed": retried until it reconnects. The rest is read
 * from the HTTP status.
 */
import { ERROR_CODES } from '../../core/errors/errors.js'
import { RecipientUnreachableError, type ProviderError } from '../../core/provider/provider-errors.js'
import { ChannelApiError } from '../shared/errors.js'
import type { HttpFailure } from '../shared/http-api.js'

/** The body of an Evolution API error: `{ status, error, response: { message } }`. */
interface EvolutionErrorBody {
  response?: { message?: unknown }
}

/** The channel's own reading of a failed answer; undefined leaves it to the HTTP status. */
export function evolutionFailure(failure: HttpFailure): ProviderError | undefined {
  const message = (failure.body as EvolutionErrorBody | undefined)?.response?.message
  const entries = Array.isArray(message) ? message : [message]
  if (entries.some((entry) => typeof entry === 'object' && entry !== null && (entry as { exists?: unknown }).exists === false))
    return new RecipientUnreachableError(`${failure.what} (the number is not on WhatsApp)`)
  if (entries.some((entry) => typeof entry === 'string' && /connection closed/i.test(entry)))
    return new ChannelApiError('evolution', ERROR_CODES.CHANNEL_SERVER_ERROR, `${failure.what} (the instance is not connected)`, {
      status: failure.status,
    })
  return undefined
}
