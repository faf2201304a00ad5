/**
 * The Graph API client: one authorized request with a timeout, its JSON answer, and failures as
 * the outbox's errors. The access token goes in the `Authorization` header and nowhere else, and
 * only to the Graph API origin or Meta's media hosts.
 */
import { ERROR_CODES } from '../../core/errors.js'
import { ProviderError } from '../../core/provider-errors.js'
import { MediaDownloadError } from '../shared/errors.js'
import { describeError, redact } from '../shared/redact.js'
import { hostMatches } from '../shared/url.js'
import { metaError, type GraphErrorBody, MetaApiError } from './errors.js'

/** Hosts Meta serves media downloads from; the token is sent to no other (besides the API origin). */
const MEDIA_DOWNLOAD_HOSTS = ['fbsbx.com', 'facebook.com', 'whatsapp.net', 'fbcdn.net']

/** A Graph API client for one access token. */
export class GraphClient {
  constructor(private readonly options: { apiRoot: string; version: string; accessToken: string; timeoutMs: number }) {}

  /** Calls `path` (under the version) with a JSON or form body; resolves the JSON answer. */
  async call<T>(method: 'GET' | 'POST', path: string, body?: object | FormData): Promise<T> {
    const url = `${this.options.apiRoot}/${this.options.version}/${path}`
    const headers: Record<string, string> = { authorization: `Bearer ${this.options.accessToken}` }
    let payload: string | FormData | undefined
    if (body instanceof FormData) payload = body
    else if (body) {
      headers['content-type'] = 'application/json'
      payload = JSON.stringify(body)
    }
    const response = await this.#fetch(url, { method, headers, ...(payload !== undefined ? { body: payload } : {}) })
    const text = await response.text()
    let json: unknown
    try {
      json = text ? JSON.parse(text) : undefined
    } catch {
      json = undefined
    }
    if (!response.ok)
      throw metaError(response.status, json as GraphErrorBody | undefined, response.headers.get('retry-after'), [this.options.accessToken])
    return json as T
  }

  /** Downloads a media URL the Graph API gave, with the token, up to `bytesMax`. */
  async download(mediaUrl: string, bytesMax: number): Promise<Buffer> {
    const url = new URL(mediaUrl)
    const sameOrigin = url.origin === new URL(this.options.apiRoot).origin
    if (!sameOrigin && !(url.protocol === 'https:' && MEDIA_DOWNLOAD_HOSTS.some((host) => hostMatches(url.hostname, host)))) {
      throw new MediaDownloadError('meta', `the media URL is not on a Meta host (${url.hostname}); the token is not sent there`)
    }
    const response = await this.#fetch(mediaUrl, { headers: { authorization: `Bearer ${this.options.accessToken}` } })
    if (!response.ok) {
      await response.body?.cancel()
      throw new MediaDownloadError('meta', `the media server answered ${response.status}`, {
        status: response.status,
        retryable: response.status >= 500,
      })
    }
    const chunks: Uint8Array[] = []
    let size = 0
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.length
      if (size > bytesMax) throw new MediaDownloadError('meta', `the media is over the limit of ${bytesMax} bytes`)
      chunks.push(chunk)
    }
    return Buffer.concat(chunks)
  }

  async #fetch(url: string, init: RequestInit): Promise<Response> {
    try {
      return await fetch(url, { ...init, signal: AbortSignal.timeout(this.options.timeoutMs) })
    } catch (error) {
      if (error instanceof ProviderError) throw error
      const timedOut = error instanceof Error && error.name === 'TimeoutError'
      // The platform may have accepted a request that timed out: retryable, and the outbox decides.
      throw new MetaApiError(
        timedOut ? ERROR_CODES.META_TIMEOUT : ERROR_CODES.META_NETWORK,
        redact(`meta: the request ${timedOut ? 'timed out' : 'failed'}: ${describeError(error, [this.options.accessToken])}`, [
          this.options.accessToken,
        ]),
        { retryable: true },
      )
    }
  }
}
