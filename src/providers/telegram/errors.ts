/**
 * Bot API failures as the outbox reads them: `429` waits `retry_after`, a recipient that blocked
 * the bot is unreachable, other client errors will never succeed and are final, server and network
 * errors are retried. No message or cause carries the bot token.
 */
import { ERROR_CODES, type ErrorCode } from '../../core/errors/errors.js'
import {
  PayloadTooLargeError,
  ProviderError,
  RateLimitedError,
  RecipientUnreachableError,
  UnsupportedContentError,
} from '../../core/provider/provider-errors.js'
import { redact, redactedCause } from '../shared/redact.js'

/** The shape of grammY's GrammyError (read structurally: grammY is loaded lazily). */
interface ApiFailure {
  error_code: number
  description: string
  method: string
  parameters?: { retry_after?: number }
}

function isApiFailure(error: unknown): error is ApiFailure {
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as ApiFailure).error_code === 'number' &&
    typeof (error as ApiFailure).description === 'string'
  )
}

/** A Bot API call failed in a way no other class names. */
export class TelegramApiError extends ProviderError {
  /** The Bot API's `error_code` (an HTTP status), when the API answered. */
  readonly status: number | undefined
  constructor(code: ErrorCode, message: string, options: { status?: number; retryable: boolean; cause?: unknown }) {
    super(code, message, { retryable: options.retryable, cause: options.cause })
    this.status = options.status
  }
}

/** Maps a failure of a Bot API call to the error the outbox acts on. */
export function telegramError(error: unknown, token: string): ProviderError {
  if (error instanceof ProviderError) return error
  if (!isApiFailure(error)) {
    return new TelegramApiError(
      ERROR_CODES.TELEGRAM_NETWORK,
      redact(`telegram: the request failed: ${error instanceof Error ? error.message : String(error)}`, [token]),
      { retryable: true, cause: redactedCause(error, [token]) },
    )
  }
  const what = redact(`telegram ${error.method}: ${error.error_code} ${error.description}`, [token])
  const status = error.error_code
  const description = error.description.toLowerCase()
  if (status === 429) return new RateLimitedError(Math.max(0, error.parameters?.retry_after ?? 1) * 1000, what)
  if (status === 403) return new RecipientUnreachableError(what)
  if (status === 413 || /too long|too big|too large/.test(description)) return new PayloadTooLargeError(what)
  if (status === 400 && /chat not found|user not found|peer_id_invalid|have no rights to send|not enough rights/.test(description))
    return new RecipientUnreachableError(what)
  if (status === 400 && /wrong file|wrong type|failed to get http url content|unsupported|can't parse/.test(description))
    return new UnsupportedContentError(what)
  if (status === 401)
    return new TelegramApiError(ERROR_CODES.TELEGRAM_UNAUTHORIZED, `${what} (check the bot token)`, { status, retryable: false })
  if (status >= 500) return new TelegramApiError(ERROR_CODES.TELEGRAM_SERVER_ERROR, what, { status, retryable: true })
  // Any other client error (400, 404, 409 …) will never succeed as it is.
  return new TelegramApiError(ERROR_CODES.TELEGRAM_REJECTED, what, { status, retryable: false })
}
