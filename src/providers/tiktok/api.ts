/**
 * The Business API client: one JSON (or multipart) call with the `Access-Token` header and a
 * timeout. The API answers HTTP 200 with `{ code, message, data }`, and `code` 0 is success;
 * any other code is an error, mapped here to the outbox's classes: 40100 is a rate limit, an
 * invalid or expired token is final, 5xxxx is TikTok's side and retried, a closed reply window
 * is `OutsideSessionWindowError`, any other code is final. No message carries the token.
 */
import { ERROR_CODES } from '../../core/errors/errors.js'
import {
  OutsideSessionWindowError,
  PayloadTooLargeError,
  type ProviderError,
  RateLimitedError,
  RecipientUnreachableError,
} from '../../core/provider/provider-errors.js'
import { ChannelApiError } from '../shared/errors.js'
import { fetchChannel, jsonOf, retryAfterMs, type HttpCaller } from '../shared/http.js'
import { redact } from '../shared/redact.js'
import { TIKTOK_LIMITS } from './limits.js'

/** A Business API answer. */
export interface TikTokAnswer<T> {
  /** The Business API's result code: 0 on success, otherwise the error (e.g. 40100: rate limited). */
  code?: number
  /** The API's description of the result (`OK`, or what went wrong). */
  message?: string
  /** The result of the call, on success. */
  data?: T
}

/** A Business API client for one access token. */
export class TikTokApi {
  readonly #caller: HttpCaller
  constructor(private readonly options: { apiRoot: string; accessToken: string; timeoutMs: number }) {
    this.#caller = { channel: 'tiktok', timeoutMs: options.timeoutMs, secrets: [options.accessToken] }
  }

  /** POSTs to `path` (under `/open_api/v1.3/`) and resolves `data`. */
  async post<T>(path: string, body: object | FormData): Promise<T> {
    const headers: Record<string, string> = { 'access-token': this.options.accessToken }
    if (!(body instanceof FormData)) headers['content-type'] = 'application/json'
    const response = await fetchChannel(this.#caller, `${this.options.apiRoot}/open_api/v1.3/${path}`, {
      method: 'POST',
      headers,
      body: body instanceof FormData ? body : JSON.stringify(body),
    })
    const answer = (await jsonOf(response)) as TikTokAnswer<T> | undefined
    if (response.ok && answer?.code === 0) return answer.data as T
    throw tiktokError(response.status, answer, response.headers.get('retry-after'), [this.options.accessToken])
  }
}

/** Token errors: invalid, expired or revoked access tokens, missing scopes. */
const UNAUTHORIZED = [40001, 40104, 40105, 40106]

/** Maps a Business API failure to the error the outbox acts on. */
export function tiktokError(
  status: number,
  answer: TikTokAnswer<unknown> | undefined,
  retryAfter: string | null,
  secrets: string[],
): ProviderError {
  const code = answer?.code
  const text = answer?.message ?? 'no detail'
  const what = redact(`tiktok: the Business API answered ${status}${code !== undefined ? ` (code ${code})` : ''}: ${text}`, secrets)
  const fields = { status, ...(code !== undefined ? { channelCode: code } : {}) }
  if (status === 429 || code === 40100)
    return new RateLimitedError(retryAfterMs(retryAfter, TIKTOK_LIMITS.rateLimitRetryAfterMsDefault), what)
  if (/48[- ]hour|reply window|outside (the )?(allowed |messaging )?window/i.test(text)) return new OutsideSessionWindowError(what)
  if (/blocked|cannot (send|message) to this user/i.test(text)) return new RecipientUnreachableError(what)
  if (/too long|exceeds? the (maximum )?length|too large/i.test(text)) return new PayloadTooLargeError(what)
  if (status === 401 || (code !== undefined && UNAUTHORIZED.includes(code)))
    return new ChannelApiError('tiktok', ERROR_CODES.CHANNEL_UNAUTHORIZED, `${what} (check the access token and its scopes)`, fields)
  if (status >= 500 || (code !== undefined && code >= 50000))
    return new ChannelApiError('tiktok', ERROR_CODES.CHANNEL_SERVER_ERROR, what, fields)
  return new ChannelApiError('tiktok', ERROR_CODES.CHANNEL_REJECTED, what, fields)
}
