/**
 * WPPConnect Server failures as the outbox reads them. A number that does not exist is answered
 * 400 ("O número … não existe"): the recipient is unreachable. A session that is not connected is
 * answered 404 ("Disconnected"): retried until it reconnects. The rest is read from the HTTP status.
 */
import { ERROR_CODES } from '../../core/errors/errors.js'
import { RecipientUnreachableError, type ProviderError } from '../../core/provider/provider-errors.js'
import { ChannelApiError } from '../shared/errors.js'
import type { HttpFailure } from '../shared/http-api.js'

/** The body of a WPPConnect error: `{ status, message, response?, error? }`. */
interface WppconnectErrorBody {
  status?: unknown
  message?: unknown
}

/** The channel's own reading of a failed answer; undefined leaves it to the HTTP status. */
export function wppconnectFailure(failure: HttpFailure): ProviderError | undefined {
  const body = failure.body as WppconnectErrorBody | undefined
  const message = typeof body?.message === 'string' ? body.message : ''
  if (failure.status === 400 && /não existe|does not exist|not exist/i.test(message))
    return new RecipientUnreachableError(`${failure.what} (the number is not on WhatsApp)`)
  if (failure.status === 404 && body?.status === 'Disconnected')
    return new ChannelApiError('wppconnect', ERROR_CODES.CHANNEL_SERVER_ERROR, `${failure.what} (the session is not connected)`, {
      status: failure.status,
    })
  return undefined
}
