/**
 * Graph API failures as the outbox reads them. The Cloud API's documented error codes decide:
 * the 24-hour customer service window, rate limits, unsupported content, payload limits and
 * unreachable recipients are final or timed as the core expects; server errors are retried.
 * No message carries the access token.
 */
import { ERROR_CODES, type ErrorCode } from '../../core/errors/errors.js'
import {
  OutsideSessionWindowError,
  PayloadTooLargeError,
  ProviderError,
  RateLimitedError,
  RecipientUnreachableError,
  UnsupportedContentError,
} from '../../core/provider/provider-errors.js'
import { graphErrorText, type GraphErrorBody } from '../shared/graph.js'
import { retryAfterMs } from '../shared/http.js'
import { META_LIMITS } from './limits.js'

export type { GraphErrorBody }

/** A Graph API call failed in a way no other class names. */
export class MetaApiError extends ProviderError {
  /** The HTTP status, when the Graph API answered. */
  readonly status: number | undefined
  /** The Graph API's error `code`, when it gave one. */
  readonly graphCode: number | undefined
  constructor(code: ErrorCode, message: string, options: { status?: number; graphCode?: number; retryable: boolean; cause?: unknown }) {
    super(code, message, { retryable: options.retryable, cause: options.cause })
    this.status = options.status
    this.graphCode = options.graphCode
  }
}

/** Error codes of the re-engagement rule: the customer service window (24 h) is closed. */
const WINDOW_CLOSED = [131047]
/** Throughput, pair-rate and application rate limits. */
const RATE_LIMITED = [4, 80007, 130429, 131048, 131056, 133016]
/** The recipient cannot get the message (not on WhatsApp, not in the test allowlist, blocked). */
const UNREACHABLE = [131026, 131030, 131021, 131045]
/** The content is not supported (type, template parameters, media the platform refused). */
const UNSUPPORTED = [131051, 131052, 131053, 132000, 132012]
/** Expired or invalid access token, missing permission. */
const UNAUTHORIZED = [190, 10, 200]

/** Maps a Graph API answer (status, body, Retry-After) to the error the outbox acts on; `secrets` are cut from its message. */
export function metaError(
  status: number,
  body: GraphErrorBody | undefined,
  retryAfterHeader: string | null,
  secrets: readonly string[] = [],
): ProviderError {
  const error = body?.error ?? {}
  const code = error.code
  const detail = [error.message, typeof error.error_data === 'string' ? error.error_data : error.error_data?.details].join(' ')
  // A Graph error message may quote the request (a token in a URL): nothing secret is kept.
  const what = graphErrorText('meta', status, body, secrets)
  if (code !== undefined && WINDOW_CLOSED.includes(code)) return new OutsideSessionWindowError(what)
  if (status === 429 || (code !== undefined && RATE_LIMITED.includes(code)))
    return new RateLimitedError(retryAfterMs(retryAfterHeader, META_LIMITS.rateLimitRetryAfterMsDefault), what)
  if (status === 413 || (code === 100 && /too long|at most|exceed|too large|size/i.test(detail))) return new PayloadTooLargeError(what)
  if (code !== undefined && UNREACHABLE.includes(code)) return new RecipientUnreachableError(what)
  if (code !== undefined && UNSUPPORTED.includes(code)) return new UnsupportedContentError(what)
  if (code !== undefined && UNAUTHORIZED.includes(code))
    return new MetaApiError(ERROR_CODES.META_UNAUTHORIZED, `${what} (check the access token and its permissions)`, {
      status,
      graphCode: code,
      retryable: false,
    })
  if (status >= 500 || code === 1 || code === 2 || code === 131000 || code === 131016)
    return new MetaApiError(ERROR_CODES.META_SERVER_ERROR, what, {
      status,
      ...(code !== undefined ? { graphCode: code } : {}),
      retryable: true,
    })
  return new MetaApiError(ERROR_CODES.META_REJECTED, what, { status, ...(code !== undefined ? { graphCode: code } : {}), retryable: false })
}
