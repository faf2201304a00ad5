/**
 * SMTP failures as the outbox reads them, from the reply code nodemailer reports: a mailbox that
 * does not exist (550, 551, 553) is unreachable; 552 is too large; a rate refusal (421, 450-452
 * naming a rate) waits; other 4xx are transient and retried; other 5xx are final; a refused login
 * is final; a connection that failed is retried. No message carries the password.
 */
import { ERROR_CODES } from '../../core/errors/errors.js'
import { PayloadTooLargeError, ProviderError, RateLimitedError, RecipientUnreachableError } from '../../core/provider/provider-errors.js'
import { ChannelApiError } from '../shared/errors.js'
import { describeError } from '../shared/redact.js'

/** The fields of a nodemailer error the mapping reads. */
interface SmtpFailure {
  code?: string
  responseCode?: number
  response?: string
}

/** Maps a failed `sendMail` to the error the outbox acts on. */
export function smtpError(error: unknown, options: { secrets: readonly string[]; rateLimitRetryAfterMs: number }): ProviderError {
  if (error instanceof ProviderError) return error
  const failure = (typeof error === 'object' && error !== null ? error : {}) as SmtpFailure
  const status = failure.responseCode
  const what = `email: ${describeError(error, options.secrets)}`
  if (failure.code === 'EAUTH')
    return new ChannelApiError('email', ERROR_CODES.CHANNEL_UNAUTHORIZED, `${what} (check the SMTP login)`, { status })
  if (status === undefined) return new ChannelApiError('email', ERROR_CODES.CHANNEL_NETWORK, what)
  if (status === 550 || status === 551 || status === 553) return new RecipientUnreachableError(what)
  if (status === 552 || status === 523) return new PayloadTooLargeError(what)
  if ((status === 421 || (status >= 450 && status <= 452)) && /rate|too many|throttl|slow down/i.test(failure.response ?? ''))
    return new RateLimitedError(options.rateLimitRetryAfterMs, what)
  if (status >= 400 && status < 500) return new ChannelApiError('email', ERROR_CODES.CHANNEL_SERVER_ERROR, what, { status })
  return new ChannelApiError('email', ERROR_CODES.CHANNEL_REJECTED, what, { status })
}
