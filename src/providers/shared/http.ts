/**
 * Plain-HTTP calls of the channels whose API is plain HTTP: one request with a timeout, a body read
 * up to a bound, a `Retry-After` read as the outbox needs it, and media downloads. Failures before
 * an answer are `ChannelApiError`s the outbox retries (the channel may have accepted a request that
 * timed out: the outbox decides); no message carries a secret. Media downloads go through
 * `download.ts`, the one download policy.
 */
import { ERROR_CODES } from '../../core/errors/errors.js'
import { ProviderError } from '../../core/provider/provider-errors.js'
import { fetchMedia, type DownloadPolicy } from './download.js'
import { ChannelApiError } from './errors.js'
import { describeError } from './redact.js'

/** Who calls, and what must never appear in an error. */
export interface HttpCaller {
  /** The channel (the provider's `name`), named in every error. */
  channel: string
  /** The longest a request may take. */
  timeoutMs: number
  /** Tokens and keys cut from any error message. */
  secrets: readonly string[]
}

/** `fetch` with the caller's timeout; a network failure or timeout is a retryable `ChannelApiError`. */
export async function fetchChannel(caller: HttpCaller, url: string, init: RequestInit = {}): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(caller.timeoutMs) })
  } catch (error) {
    if (error instanceof ProviderError) throw error
    const timedOut = error instanceof Error && error.name === 'TimeoutError'
    throw new ChannelApiError(
      caller.channel,
      timedOut ? ERROR_CODES.CHANNEL_TIMEOUT : ERROR_CODES.CHANNEL_NETWORK,
      `the request ${timedOut ? 'timed out' : 'failed'}: ${describeError(error, caller.secrets)}`,
    )
  }
}

/** The JSON of a response body, or undefined when it is empty or not JSON. */
export async function jsonOf(response: Response): Promise<unknown> {
  const text = await response.text()
  try {
    return text ? (JSON.parse(text) as unknown) : undefined
  } catch {
    return undefined
  }
}

/** A `Retry-After` header (seconds, or an HTTP date) in ms; `fallbackMs` when there is none. */
export function retryAfterMs(header: string | null | undefined, fallbackMs: number, now = Date.now()): number {
  if (header === null || header === undefined || header.trim() === '') return fallbackMs
  const seconds = Number(header)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const date = Date.parse(header)
  return Number.isFinite(date) ? Math.max(0, date - now) : fallbackMs
}

/**
 * Downloads `url` under the channel's download `policy` (`download.ts`: HTTPS to its hosts, public
 * addresses only, redirects checked, size and time bounded), sending `headers` (credentials the
 * caller chose) to the URL's own origin only.
 */
export function downloadMedia(
  caller: HttpCaller,
  url: string,
  options: { headers?: Record<string, string>; policy: DownloadPolicy },
): Promise<Buffer> {
  return fetchMedia(caller, url, options.policy, options.headers ?? {})
}
