/**
 * The Graph API client shared by the channels Meta runs on it (WhatsApp Cloud, Messenger,
 * Instagram): one authorized request with a timeout, its JSON answer, and failures as the errors
 * each channel maps them to. The access token goes in the `Authorization` header and nowhere else,
 * and only to the Graph API origin or Meta's media hosts.
 */
import type { ProviderError } from '../../core/provider/provider-errors.js'
import { ChannelApiError, MediaDownloadError } from './errors.js'
import { fetchMedia } from './download.js'
import { fetchChannel, jsonOf, type HttpCaller } from './http.js'
import { redact } from './redact.js'
import { hostMatches } from './url.js'

/** A Graph API error body: `{ error: { message, type, code, error_subcode, error_data } }`. */
export interface GraphErrorBody {
  /** The error Meta reports; absent on a body that is not a Graph error. */
  error?: {
    /** A human-readable description of the error. */
    message?: string
    /** The error's category, such as `OAuthException`. */
    type?: string
    /** Meta's error code (e.g. 190: the access token is invalid or expired, 131047: outside the 24-hour window). */
    code?: number
    /** A finer code under `code`, when Meta gives one. */
    error_subcode?: number
    /** More detail: an object with `details`, or a string. */
    error_data?:
      | {
          /** What went wrong, in more words than `message`. */
          details?: string
        }
      | string
  }
}

/** Hosts Meta serves media downloads from; the token is sent to no other (besides the API origin). */
const MEDIA_DOWNLOAD_HOSTS = ['fbsbx.com', 'facebook.com', 'whatsapp.net', 'fbcdn.net']

/** Options of a `GraphClient`. */
export interface GraphClientOptions {
  /** The channel (the provider's `name`). */
  channel: string
  apiRoot: string
  version: string
  accessToken: string
  timeoutMs: number
  /** The error a Graph API error answer is for this channel. */
  errorOf(status: number, body: GraphErrorBody | undefined, retryAfter: string | null): ProviderError
  /** The error a request that got no answer is. @default a retryable `ChannelApiError` */
  noAnswerError?(error: ChannelApiError): ProviderError
}

/** A Graph API client for one access token. */
export class GraphClient {
  readonly #caller: HttpCaller

  constructor(private readonly options: GraphClientOptions) {
    this.#caller = { channel: options.channel, timeoutMs: options.timeoutMs, secrets: [options.accessToken] }
  }

  /** Calls `path` (under the version) with a JSON or form body; resolves the JSON answer. */
  async call<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: object | FormData): Promise<T> {
    const url = `${this.options.apiRoot}/${this.options.version}/${path}`
    const headers: Record<string, string> = { authorization: `Bearer ${this.options.accessToken}` }
    let payload: string | FormData | undefined
    if (body instanceof FormData) payload = body
    else if (body) {
      headers['content-type'] = 'application/json'
      payload = JSON.stringify(body)
    }
    const response = await this.#fetch(url, { method, headers, ...(payload !== undefined ? { body: payload } : {}) })
    const json = await jsonOf(response)
    if (!response.ok) throw this.options.errorOf(response.status, json as GraphErrorBody | undefined, response.headers.get('retry-after'))
    return json as T
  }

  /** Downloads a media URL the Graph API gave, with the token, up to `bytesMax`. */
  async download(mediaUrl: string, bytesMax: number): Promise<Buffer> {
    const url = new URL(mediaUrl)
    const sameOrigin = url.origin === new URL(this.options.apiRoot).origin
    if (!sameOrigin && !(url.protocol === 'https:' && MEDIA_DOWNLOAD_HOSTS.some((host) => hostMatches(url.hostname, host)))) {
      throw new MediaDownloadError(
        this.options.channel,
        `the media URL is not on a Meta host (${url.hostname}); the token is not sent there`,
      )
    }
    // The download policy again for every redirect: Meta's hosts over HTTPS at public addresses, or the API origin as configured.
    const policy = { hosts: MEDIA_DOWNLOAD_HOSTS, trustedOrigins: [new URL(this.options.apiRoot).origin], bytesMax }
    return fetchMedia(this.#caller, mediaUrl, policy, { authorization: `Bearer ${this.options.accessToken}` })
  }

  async #fetch(url: string, init: RequestInit): Promise<Response> {
    try {
      return await fetchChannel(this.#caller, url, init)
    } catch (error) {
      if (error instanceof ChannelApiError && this.options.noAnswerError) throw this.options.noAnswerError(error)
      throw error
    }
  }
}

/** What a Graph error answer says, as one line naming the channel, with `secrets` cut (a Graph message may quote a URL that holds a token). */
export function graphErrorText(channel: string, status: number, body: GraphErrorBody | undefined, secrets: readonly string[]): string {
  const error = body?.error ?? {}
  const data = typeof error.error_data === 'string' ? error.error_data : error.error_data?.details
  const detail = [error.message, data].filter(Boolean).join(': ') || 'no detail'
  const code = error.code !== undefined ? ` (code ${error.code}${error.error_subcode !== undefined ? `/${error.error_subcode}` : ''})` : ''
  return redact(`${channel}: the Graph API answered ${status}${code}: ${detail}`, secrets)
}
