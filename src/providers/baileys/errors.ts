/**
 * WhatsApp Web failures as the outbox reads them. The library throws Boom errors: a query the
 * server refused carries the server's code in `data` and its text as the message (`rate-overlimit`
 * 429, `item-not-found` 404, `forbidden` 403, `not-acceptable` 406); a closed connection carries
 * its reason in `output.statusCode` (`DisconnectReason`). WhatsApp names no time for a rate limit,
 * so the provider's `rateLimitRetryAfterMs` is waited. A logged-out session is final; a dropped
 * connection and anything unknown are retried.
 */
import { ERROR_CODES } from '../../core/errors/errors.js'
import { ProviderError, RateLimitedError, RecipientUnreachableError, UnsupportedContentError } from '../../core/provider/provider-errors.js'
import { ChannelApiError } from '../shared/errors.js'

/** A Boom error, read structurally (the library loads lazily). */
interface BoomLike {
  message?: string
  data?: unknown
  output?: { statusCode?: number }
}

/** Server codes of a refused query. */
const SERVER = { rateOverlimit: 429, itemNotFound: 404, forbidden: 403, notAcceptable: 406 } as const
/** `DisconnectReason`s of a closed connection. */
export const DISCONNECT = {
  loggedOut: 401,
  connectionClosed: 428,
  connectionLost: 408,
  connectionReplaced: 440,
  restartRequired: 515,
} as const

/** Maps a failure of a send to the error the outbox acts on. */
export function baileysError(error: unknown, rateLimitRetryAfterMs: number): ProviderError {
  if (error instanceof ProviderError) return error
  const boom = (typeof error === 'object' && error !== null ? error : { message: String(error) }) as BoomLike
  const what = `baileys: ${boom.message ?? 'the send failed'}`
  const code = typeof boom.data === 'number' ? boom.data : undefined
  const status = boom.output?.statusCode
  if (code === SERVER.rateOverlimit || boom.message === 'rate-overlimit') return new RateLimitedError(rateLimitRetryAfterMs, what)
  if (code === SERVER.itemNotFound || code === SERVER.forbidden)
    return new RecipientUnreachableError(`${what} (no such chat, or the bot is not in it)`)
  if (code === SERVER.notAcceptable) return new UnsupportedContentError(what)
  const options = { ...(status !== undefined ? { status } : {}), ...(code !== undefined ? { channelCode: code } : {}) }
  if (status === DISCONNECT.loggedOut)
    return new ChannelApiError('baileys', ERROR_CODES.CHANNEL_UNAUTHORIZED, `${what} (logged out: pair the session again)`, options)
  if (status === DISCONNECT.connectionLost) return new ChannelApiError('baileys', ERROR_CODES.CHANNEL_TIMEOUT, what, options)
  if (status === DISCONNECT.connectionClosed || status === DISCONNECT.restartRequired)
    return new ChannelApiError('baileys', ERROR_CODES.CHANNEL_NETWORK, what, options)
  return new ChannelApiError('baileys', ERROR_CODES.CHANNEL_SERVER_ERROR, what, options)
}

/** Why a connection closed: its `DisconnectReason` code, when it has one. */
export function disconnectCode(error: unknown): number | undefined {
  const status = (error as BoomLike | undefined)?.output?.statusCode
  return typeof status === 'number' ? status : undefined
}
