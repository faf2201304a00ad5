/**
 * Plain-HTTP calls of the channels whose API is plain HTTP: one request with a timeout, a body read
 * up to a bound, a `Retry-After` read as the outbox needs it, and media downloads. Failures before
 * an answer are `ChannelApiError`s the outbox retries (the channel may have accepted a request that
 * timed out: the outbox decides); no message carries a secret.
 */
import { ERROR_CODES } from '../../core/errors.js'
import { ProviderError } from '../../core/provider-errors.js'
import { ChannelApiError, MediaDownloadError } from './errors.js'
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

/** Reads a media response body, refusing one over `bytesMax` (declared or streamed). */
export async function readMediaBody(channel: string, response: Response, bytesMax: number): Promise<Buffer> {
  if (!response.ok) {
    await response.body?.cancel()
    throw new MediaDownloadError(channel, `the media server answered ${response.status}`, {
      status: response.status,
      retryable: response.status >= 500 || response.status === 429,
    })
  }
  const declared = Number(response.headers.get('content-length') ?? 0)
  if (declared > bytesMax) {
    await response.body?.cancel()
    throw new MediaDownloadError(channel, `the media is ${declared} bytes, over the limit of ${bytesMax}`)
  }
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of (response.body ?? []) as AsyncIterable<Uint8Array>) {
    size += chunk.length
    if (size > bytesMax) throw new MediaDownloadError(channel, `the media is over the limit of ${bytesMax} bytes`)
    chunks.push(chunk)
  }
  return Buffer.concat(chunks)
}

/** Downloads `url` with `headers` (credentials the caller chose to send there) up to `bytesMax`. */
export async function downloadMedia(
  caller: HttpCaller,
  url: string,
  options: { headers?: Record<string, string>; bytesMax: number },
): Promise<Buffer> {
  let response: Response
  try {
    response = await fetchChannel(caller, url, { headers: options.headers ?? {} })
  } catch (error) {
    throw new MediaDownloadError(caller.channel, describeError(error, caller.secrets), { retryable: true })
  }
  return readMediaBody(caller.channel, response, options.bytesMax)
}
