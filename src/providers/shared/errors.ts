/**
 * Errors of the provider layer. Each is a `ProviderError` with a stable `code`, so the core's
 * retry rules and an operator's alerts read them like any other channel error.
 */
import { ERROR_CODES } from '../../core/errors/errors.js'
import { MediaUnavailableError, ProviderError, type MediaRefusal } from '../../core/provider/provider-errors.js'

/**
 * A stored media reference read back from the journal is not valid: an unknown version, a value of
 * the wrong shape, a host outside the allowlist, or a value that does not match its check. Final:
 * reading the same record again gives the same answer. The core reports it as
 * `MediaUnavailableError` with reason `'rehydrate-failed'`.
 */
export class MediaRefInvalidError extends ProviderError {
  /** The channel whose codec refused the reference. */
  readonly channel: string
  constructor(channel: string, detail: string) {
    super(ERROR_CODES.MEDIA_REF_INVALID, `${channel}: the stored media reference is not valid: ${detail}`, { retryable: false })
    this.channel = channel
  }
}

/** A provider option is missing or invalid (checked once, in the constructor). */
export class ProviderConfigError extends ProviderError {
  constructor(channel: string, detail: string) {
    super(ERROR_CODES.PROVIDER_CONFIG_INVALID, `${channel}: ${detail}`, { retryable: false })
  }
}

/** The fewest characters a webhook secret may have. @default 16 */
export const WEBHOOK_SECRET_LENGTH_MIN = 16

/**
 * A webhook secret the operator chose is missing, shorter than `WEBHOOK_SECRET_LENGTH_MIN` (16)
 * characters, or not of the characters the channel allows. A `ProviderConfigError` (code
 * `PROVIDER_CONFIG_INVALID`, final), thrown by the provider's constructor, so it never starts; the
 * message names the option, never the value.
 */
export class WeakWebhookSecretError extends ProviderConfigError {
  /** The channel whose option was refused. */
  readonly channel: string
  /** The option (`webhook.secret`, `webhook.secretToken`, ...). */
  readonly option: string
  constructor(channel: string, option: string, detail: string) {
    super(channel, `${option} ${detail}`)
    this.channel = channel
    this.option = option
  }
}

/** A media download failed (the platform refused it, or the media expired). */
export class MediaDownloadError extends ProviderError {
  /** The HTTP status the platform answered, when there was one. */
  readonly status: number | undefined
  constructor(channel: string, detail: string, options: { status?: number; retryable?: boolean; cause?: unknown } = {}) {
    super(ERROR_CODES.MEDIA_DOWNLOAD_FAILED, `${channel}: the media could not be downloaded: ${detail}`, {
      retryable: options.retryable ?? false,
      cause: options.cause,
    })
    this.status = options.status
  }
}

export type { MediaRefusal } from '../../core/provider/provider-errors.js'

/**
 * A media download the download policy refused (`shared/download.ts`): a URL that is not HTTPS or
 * not on the channel's hosts, an address that is not public, too many redirects, a body over the
 * cap, no complete answer in time, or a content type the channel does not serve. A
 * `MediaUnavailableError` with reason `'download-refused'` and code `MEDIA_UNAVAILABLE`; final.
 */
export class MediaRefusedError extends MediaUnavailableError {
  /** The channel whose download was refused. */
  readonly channel: string
  declare readonly refusal: MediaRefusal
  constructor(channel: string, refusal: MediaRefusal, detail: string) {
    super('download-refused', `${channel}: ${detail}`, undefined, refusal)
    this.channel = channel
  }
}

/** Which `ChannelApiError` codes there are. */
export type ChannelApiCode =
  | typeof ERROR_CODES.CHANNEL_UNAUTHORIZED
  | typeof ERROR_CODES.CHANNEL_SERVER_ERROR
  | typeof ERROR_CODES.CHANNEL_REJECTED
  | typeof ERROR_CODES.CHANNEL_TIMEOUT
  | typeof ERROR_CODES.CHANNEL_NETWORK

/**
 * A channel's API failed in a way none of the contract's classes names: credentials refused and
 * other rejections are final, server, timeout and network failures are retried.
 */
export class ChannelApiError extends ProviderError {
  /** The channel (the provider's `name`). */
  readonly channel: string
  /** The HTTP status, when the API answered. */
  readonly status: number | undefined
  /** The channel's own error code, when it gave one. */
  readonly channelCode: string | number | undefined
  constructor(
    channel: string,
    code: ChannelApiCode,
    message: string,
    options: { status?: number; channelCode?: string | number; cause?: unknown } = {},
  ) {
    const retryable = code !== ERROR_CODES.CHANNEL_UNAUTHORIZED && code !== ERROR_CODES.CHANNEL_REJECTED
    super(code, message.startsWith(`${channel}:`) ? message : `${channel}: ${message}`, { retryable, cause: options.cause })
    this.channel = channel
    this.status = options.status
    this.channelCode = options.channelCode
  }
}

/** How a channel reads an answer none of the contract's classes names. */
export interface ApiAnswer {
  /** The HTTP status it answered. */
  status: number
  /** The channel's own error code, when it gave one. */
  channelCode?: string | number | undefined
  /** The credentials were refused. @default status 401 */
  unauthorized?: boolean
  /** The channel failed on its side, and the call may succeed again. @default status 500 or over */
  serverError?: boolean
  /** What to check when the credentials were refused (`check the bot token`). */
  hint: string
}

/**
 * An answer none of the contract's classes names, as a `ChannelApiError`: refused credentials are
 * final and say what to check, a server error is retried, and any other answer is final.
 */
export function answeredError(channel: string, what: string, answer: ApiAnswer): ChannelApiError {
  const { status, channelCode } = answer
  const fields = { status, ...(channelCode !== undefined ? { channelCode } : {}) }
  if (answer.unauthorized ?? status === 401)
    return new ChannelApiError(channel, ERROR_CODES.CHANNEL_UNAUTHORIZED, `${what} (${answer.hint})`, fields)
  if (answer.serverError ?? status >= 500) return new ChannelApiError(channel, ERROR_CODES.CHANNEL_SERVER_ERROR, what, fields)
  return new ChannelApiError(channel, ERROR_CODES.CHANNEL_REJECTED, what, fields)
}
