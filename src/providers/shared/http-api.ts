/**
 * A channel's JSON API over plain HTTP (`http.ts` makes the call): one request, its JSON answer,
 * and a failed answer as the error the outbox acts on. The channel names its own failures first
 * (an unknown recipient, a closed session window); what it leaves is read from the HTTP status.
 * No message carries a credential.
 */
import { PayloadTooLargeError, RateLimitedError, type ProviderError } from '../../core/provider/provider-errors.js'
import { answeredError } from './errors.js'
import type { DownloadPolicy } from './download.js'
import { downloadMedia, fetchChannel, jsonOf, retryAfterMs, type HttpCaller } from './http.js'
import { redact } from './redact.js'

/** A failed answer, as a channel's error mapping reads it. */
export interface HttpFailure {
  status: number
  /** The JSON body, or undefined when it was not JSON. */
  body: unknown
  /** The `Retry-After` header in ms, or the caller's default when there was none. */
  retryAfterMs: number
  /** The answer's headers (a channel's own rate-limit headers). */
  headers: Headers
  /** `<channel>: <method> <path> answered <status>: <body>`, secrets cut: the message to give. */
  what: string
}

/** Options of an `HttpApi`. */
export interface HttpApiOptions extends HttpCaller {
  /** How long a rate-limited request waits when the channel names no time. */
  rateLimitRetryAfterMsDefault: number
  /** The channel's own reading of a failure; undefined leaves it to the HTTP status. */
  failure?: (failure: HttpFailure) => ProviderError | undefined
}

/** A channel's limits its `HttpApi` is built from. */
export interface HttpApiLimits {
  /** The longest a request may take when the provider's options name no time. */
  requestTimeoutMs: number
  /** How long a rate-limited request waits when the channel names no time. */
  rateLimitRetryAfterMsDefault: number
}

/**
 * `channel`'s API with its `limits`, the provider's `requestTimeoutMs` option over the channel's
 * default, and the channel's `secrets` and own reading of a `failure`.
 */
export function channelHttpApi(
  channel: string,
  limits: HttpApiLimits,
  options: { requestTimeoutMs?: number | undefined },
  protocol: Pick<HttpApiOptions, 'secrets' | 'failure'>,
): HttpApi {
  const timeoutMs = options.requestTimeoutMs ?? limits.requestTimeoutMs
  return new HttpApi({ channel, timeoutMs, rateLimitRetryAfterMsDefault: limits.rateLimitRetryAfterMsDefault, ...protocol })
}

/** What a request sends. */
export interface HttpRequest {
  headers?: Record<string, string>
  /** A JSON body. */
  json?: unknown
  /** A form body (`application/x-www-form-urlencoded` or multipart). */
  form?: URLSearchParams | FormData
}

/** The longest part of a failed answer's body kept in an error message. @default 300 characters */
const DETAIL_LENGTH_MAX = 300

/** One channel's JSON API. */
export class HttpApi {
  constructor(readonly options: HttpApiOptions) {}

  /** Sends a request; resolves its JSON answer (undefined for an empty body), or throws the error the outbox acts on. */
  async request<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, request: HttpRequest = {}): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json', ...request.headers }
    let body: string | URLSearchParams | FormData | undefined = request.form
    if (request.json !== undefined) {
      headers['content-type'] = 'application/json'
      body = JSON.stringify(request.json)
    }
    const response = await fetchChannel(this.options, url, { method, headers, ...(body !== undefined ? { body } : {}) })
    const json = await jsonOf(response)
    if (response.ok) return json as T
    // Redacted before it is cut: a cut through a secret would leave its first half unredacted.
    const secrets = this.options.secrets
    const detail =
      redact(json === undefined ? response.statusText : JSON.stringify(json), secrets).slice(0, DETAIL_LENGTH_MAX) || 'no detail'
    const failure: HttpFailure = {
      status: response.status,
      body: json,
      retryAfterMs: retryAfterMs(response.headers.get('retry-after'), this.options.rateLimitRetryAfterMsDefault),
      headers: response.headers,
      what: redact(`${this.options.channel}: ${method} ${new URL(url).pathname} answered ${response.status}: ${detail}`, secrets),
    }
    throw this.options.failure?.(failure) ?? this.#statusFailure(failure)
  }

  /** Downloads `url` under the channel's download `policy`, with `headers` sent to its origin only. */
  download(url: string, options: { headers?: Record<string, string>; policy: DownloadPolicy }): Promise<Buffer> {
    return downloadMedia(this.options, url, options)
  }

  /** Status alone: 429 waits, 413 is too large, 401/403 are bad credentials, 408 and 5xx are retried, other 4xx are final. */
  #statusFailure({ status, what, retryAfterMs }: HttpFailure): ProviderError {
    if (status === 429) return new RateLimitedError(retryAfterMs, what)
    if (status === 413) return new PayloadTooLargeError(what)
    const unauthorized = status === 401 || status === 403
    return answeredError(this.options.channel, what, {
      status,
      unauthorized,
      serverError: status === 408 || status >= 500,
      hint: 'check the credentials',
    })
  }
}
