/**
 * Errors a provider raises when a send fails. The outbox reads them: a final error goes straight to
 * the dead-letter queue, a `RateLimitedError` waits at least its `retryAfterMs`, anything else with
 * `retryable !== false` is retried with backoff.
 */
import { BotmeshError, ERROR_CODES, type ChannelErrorCode, type ErrorCode } from '../errors/errors.js'

/**
 * A channel refused or failed an operation. Its code is one of `ERROR_CODES` or a channel's own
 * (`ChannelErrorCode`): a custom provider may throw `new ProviderError('DOWN', …)`.
 */
export class ProviderError extends BotmeshError<ErrorCode | ChannelErrorCode> {
  constructor(code: ErrorCode | ChannelErrorCode, message: string, options: { retryable?: boolean; cause?: unknown } = {}) {
    super(code, message, { retryable: options.retryable ?? true, cause: options.cause })
  }
}

/** The channel asks us to slow down; the next attempt waits at least `retryAfterMs`. */
export class RateLimitedError extends ProviderError {
  /** How long the channel asks to wait, in ms. */
  readonly retryAfterMs: number
  constructor(retryAfterMs: number, message = `rate limited; retry after ${retryAfterMs} ms`) {
    super(ERROR_CODES.RATE_LIMITED, message, { retryable: true })
    this.retryAfterMs = retryAfterMs
  }
}

/** The channel cannot carry this kind of content. Final. */
export class UnsupportedContentError extends ProviderError {
  constructor(message = 'the channel does not support this content') {
    super(ERROR_CODES.UNSUPPORTED_CONTENT, message, { retryable: false })
  }
}

/** The content is larger than the channel accepts. Final. */
export class PayloadTooLargeError extends ProviderError {
  constructor(message = 'the content is larger than the channel accepts') {
    super(ERROR_CODES.PAYLOAD_TOO_LARGE, message, { retryable: false })
  }
}

/** The channel only allows replies within a session window that has closed (WhatsApp's 24 h). Final. */
export class OutsideSessionWindowError extends ProviderError {
  constructor(message = 'the session window with this recipient is closed') {
    super(ERROR_CODES.OUTSIDE_SESSION_WINDOW, message, { retryable: false })
  }
}

/** The recipient cannot be reached (blocked the bot, does not exist). Final. */
export class RecipientUnreachableError extends ProviderError {
  constructor(message = 'the recipient cannot be reached') {
    super(ERROR_CODES.RECIPIENT_UNREACHABLE, message, { retryable: false })
  }
}

/** A standby replica may not use a leader-only transport session; the leader delivers. Retried. */
export class ProviderNotLeaderError extends ProviderError {
  constructor(message = 'this replica does not hold the transport session; the leader delivers') {
    super(ERROR_CODES.PROVIDER_NOT_LEADER, message, { retryable: true })
  }
}

/**
 * Why media cannot be downloaded: a replayed reference that was not journaled, was written by
 * another provider or could not be rebuilt; or a download the provider's download policy refused
 * (a host off the allowlist, a private address, too many redirects, too large, too slow, a content
 * type the channel does not serve), live or replayed.
 */
export type MediaUnavailableReason = 'not-durable' | 'provider-mismatch' | 'rehydrate-failed' | 'download-refused'

/** What a download policy refused (reason `'download-refused'`; docs/security.md). */
export type MediaRefusal = 'url' | 'address' | 'redirects' | 'size' | 'timeout' | 'content-type'

/** The media cannot be downloaded: a replayed reference could not be rebuilt, or the download policy refused it. Final. */
export class MediaUnavailableError extends ProviderError {
  /** Why the reference could not be rebuilt. */
  readonly reason: MediaUnavailableReason
  /** What the download policy refused, when it refused the download (reason `'download-refused'`). */
  readonly refusal: MediaRefusal | undefined
  constructor(reason: MediaUnavailableReason, detail: string, cause?: unknown, refusal?: MediaRefusal) {
    super(ERROR_CODES.MEDIA_UNAVAILABLE, `media unavailable (${reason}): ${detail}`, { retryable: false, cause })
    this.reason = reason
    this.refusal = refusal
  }
}

const FINAL_ERRORS = [UnsupportedContentError, PayloadTooLargeError, OutsideSessionWindowError, RecipientUnreachableError]

/** Whether a send error must go straight to the dead-letter queue instead of being retried. */
export function isFinalSendError(error: unknown): boolean {
  if (FINAL_ERRORS.some((type) => error instanceof type)) return true
  return typeof error === 'object' && error !== null && (error as { retryable?: unknown }).retryable === false
}
