/**
 * The one download policy of every provider's media, live and replayed alike. A sender chooses the
 * URL of live media and a journal may have been edited, so each download:
 * - goes over HTTPS to a host on the channel's list (and its subdomains), on the default port;
 *   an exact origin the operator configured (an API root, a media proxy, a test double on
 *   127.0.0.1) is the one exception, for that origin only;
 * - connects only to public addresses: the address checked is the one connected to
 *   (`publicOnlyLookup`), so a name that resolves to loopback, a private range or a metadata
 *   service is refused too;
 * - follows at most `redirectsMax` redirects by hand, each hop checked again, and sends the
 *   caller's credentials to the first origin only;
 * - reads at most `bytesMax` bytes, within `timeoutMs` for every hop and the body together, and
 *   refuses a content type outside `contentTypes` when the channel declares them.
 * A refusal is a `MediaRefusedError` (a `MediaUnavailableError`) naming what was refused; an answer
 * the media server gave (404, 500) or a failed connection is a `MediaDownloadError` as before.
 */
import { Agent, fetch, getGlobalDispatcher, type Dispatcher, type Response } from 'undici'
import { AddressRefusedError, addressProblem, publicOnlyLookup } from './address.js'
import { MediaDownloadError, MediaRefusedError, ProviderConfigError } from './errors.js'
import { describeError } from './redact.js'
import { hostMatches, isIpLiteral } from './url.js'

/** Where a channel's media may come from, and what it may be. */
export interface DownloadPolicy {
  /** Hosts (and their subdomains) media may come from, over HTTPS; undefined accepts any public host name. */
  hosts?: readonly string[]
  /**
   * Exact origins the operator configured (`https://media.example:8443`, a test double's
   * `http://127.0.0.1:<port>`): plain HTTP, any port and any address are accepted for these
   * origins only. Never an origin a sender or the journal chose.
   */
  trustedOrigins?: readonly string[]
  /** Accepted `Content-Type`s: exact (`application/pdf`) or a whole type (`image/*`). @default any */
  contentTypes?: readonly string[]
  /** The largest body read. */
  bytesMax: number
  /** The most redirects followed. @default DOWNLOAD_LIMITS.redirectsMax (3) */
  redirectsMax?: number
}

/** Who downloads: the channel named in errors, the deadline, and what no error may quote. */
export interface DownloadCaller {
  /** The channel downloading, as refusals name it (`gupshup`, `twilio`, …). */
  channel: string
  /** The longest the download may take, every hop and the body together. */
  timeoutMs: number
  /** Tokens and keys cut from any error message. */
  secrets: readonly string[]
}

/** The limits of a download, named once. */
export const DOWNLOAD_LIMITS = {
  /** The most redirects a download follows. @default 3 */
  redirectsMax: 3,
} as const

/** One hop: its URL, and whether its origin is one the operator configured. */
interface Hop {
  url: URL
  trusted: boolean
}

/** Downloads `url` under `policy`, sending `headers` (credentials the caller chose) to its origin only. */
export async function fetchMedia(
  caller: DownloadCaller,
  url: string,
  policy: DownloadPolicy,
  headers: Record<string, string> = {},
): Promise<Buffer> {
  const deadline = new AbortController()
  const timer = setTimeout(
    () => deadline.abort(new MediaRefusedError(caller.channel, 'timeout', `no complete answer within ${caller.timeoutMs} ms`)),
    caller.timeoutMs,
  )
  try {
    return await followHops(caller, url, policy, headers, deadline.signal)
  } catch (error) {
    // Whatever the abort interrupted (a connect, a read) ends as the timeout refusal, never an AbortError.
    if (deadline.signal.aborted) throw deadline.signal.reason
    throw error
  } finally {
    clearTimeout(timer)
  }
}

async function followHops(
  caller: DownloadCaller,
  url: string,
  policy: DownloadPolicy,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<Buffer> {
  const redirectsMax = policy.redirectsMax ?? DOWNLOAD_LIMITS.redirectsMax
  let hop = checkedHop(caller.channel, url, policy)
  const firstOrigin = hop.url.origin
  let sent = headers
  for (let redirects = 0; ; redirects++) {
    // Credentials go to the first origin only: once a redirect leaves it, they are dropped for good.
    if (hop.url.origin !== firstOrigin) sent = {}
    const response = await get(caller, hop, sent, signal)
    const location = response.headers.get('location')
    if (response.status < 300 || response.status >= 400 || location === null) return await readBody(caller, response, policy)
    await response.body?.cancel().catch(() => undefined)
    if (redirects >= redirectsMax) throw new MediaRefusedError(caller.channel, 'redirects', `more than ${redirectsMax} redirects`)
    let next: string
    try {
      next = new URL(location, hop.url).href
    } catch {
      throw new MediaRefusedError(caller.channel, 'url', 'a redirect names a URL that cannot be parsed')
    }
    hop = checkedHop(caller.channel, next, policy)
  }
}

/**
 * The dispatcher to hand the `fetch` of a library that downloads by itself (Baileys), for one
 * download: each request it is asked to make, the first and every redirect, is a hop checked
 * like ours (at most `redirectsMax` redirects), then connects through the checked connections, or
 * as this process does for a configured origin. A refused hop fails that library's `fetch` with the
 * `MediaRefusedError` as its cause (`refusalIn` finds it). `url` is checked at once: its refusal
 * is thrown before the library connects anywhere.
 */
export function checkedDispatcher(channel: string, url: string, policy: DownloadPolicy): Agent {
  checkedHop(channel, url, policy)
  return new HopCheckingDispatcher(channel, policy)
}

/** The refusal behind a failed `fetch` (`fetch failed`, caused by a hop or an address refused), if any. */
export function refusalIn(channel: string, error: unknown): MediaRefusedError | undefined {
  for (let depth = 0; depth < 5 && error instanceof Error; depth++) {
    if (error instanceof MediaRefusedError) return error
    if (error instanceof AddressRefusedError)
      return new MediaRefusedError(channel, 'address', `the media host ${error.hostname} is refused: ${error.detail}`)
    error = error.cause
  }
  return undefined
}

/** An Agent that opens no connection of its own: it checks each request, then hands it on. */
class HopCheckingDispatcher extends Agent {
  #requests = 0
  constructor(
    private readonly channel: string,
    private readonly policy: DownloadPolicy,
  ) {
    super()
  }

  override dispatch(options: Agent.DispatchOptions, handler: Dispatcher.DispatchHandlers): boolean {
    try {
      const redirectsMax = this.policy.redirectsMax ?? DOWNLOAD_LIMITS.redirectsMax
      if (++this.#requests > redirectsMax + 1) throw new MediaRefusedError(this.channel, 'redirects', `more than ${redirectsMax} redirects`)
      const hop = checkedHop(this.channel, new URL(options.path, String(options.origin)).href, this.policy)
      return (hop.trusted ? getGlobalDispatcher() : CHECKED).dispatch(options, handler)
    } catch (error) {
      handler.onError?.(error as Error)
      return true
    }
  }
}

/** `url` as a hop, or the refusal naming why it may not be fetched. */
function checkedHop(channel: string, value: string, policy: DownloadPolicy): Hop {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new MediaRefusedError(channel, 'url', 'the media URL cannot be parsed')
  }
  if (policy.trustedOrigins?.includes(url.origin)) return { url, trusted: true }
  const refuse = (detail: string) => new MediaRefusedError(channel, 'url', `the media URL is refused: ${detail}`)
  if (url.protocol !== 'https:') throw refuse(`the scheme ${url.protocol} is not https:`)
  if (url.username !== '' || url.password !== '') throw refuse('it carries userinfo')
  const host = url.hostname
  if (isIpLiteral(host)) {
    const problem = addressProblem(host.replace(/^\[|\]$/g, ''))
    if (problem !== undefined) throw new MediaRefusedError(channel, 'address', `the media URL is refused: ${problem}`)
    throw refuse('the host is an IP literal')
  }
  if (policy.hosts) {
    if (!policy.hosts.some((allowed) => hostMatches(host, allowed)))
      throw refuse(`the host ${host} is not on the allowlist (${policy.hosts.join(', ')})`)
    if (url.port !== '') throw refuse(`the port ${url.port} is not the default port`)
  }
  return { url, trusted: false }
}

/**
 * The connections of hops the policy checks: every address is checked as it is connected to. A
 * pooled connection was checked when it was made, and is reused for its own origin only.
 */
const CHECKED = new Agent({ connect: { lookup: publicOnlyLookup } })

/** Sends a GET for `hop` without following redirects; resolves its answer. */
async function get(caller: DownloadCaller, hop: Hop, headers: Record<string, string>, signal: AbortSignal): Promise<Response> {
  try {
    // A configured origin connects as this process does (its global dispatcher: a test double's routing).
    return await fetch(hop.url, { headers, redirect: 'manual', signal, ...(hop.trusted ? {} : { dispatcher: CHECKED }) })
  } catch (error) {
    const refused = refusalIn(caller.channel, error)
    if (refused) throw refused
    throw new MediaDownloadError(caller.channel, describeError(error, caller.secrets), { retryable: true, cause: error })
  }
}

/** The body of a final answer, refusing a failed status, a content type outside the policy, or more than `bytesMax`. */
async function readBody(caller: DownloadCaller, response: Response, policy: DownloadPolicy): Promise<Buffer> {
  const status = response.status
  if (status < 200 || status >= 300) {
    await response.body?.cancel().catch(() => undefined)
    throw new MediaDownloadError(caller.channel, `the media server answered ${status}`, {
      status,
      retryable: status >= 500 || status === 429,
    })
  }
  const refuse = async (refusal: 'content-type' | 'size', detail: string) => {
    await response.body?.cancel().catch(() => undefined)
    return new MediaRefusedError(caller.channel, refusal, detail)
  }
  const type = contentTypeProblem(response.headers.get('content-type') ?? undefined, policy.contentTypes)
  if (type !== undefined) throw await refuse('content-type', type)
  const declared = Number(response.headers.get('content-length') ?? 0)
  if (declared > policy.bytesMax) throw await refuse('size', `the media is ${declared} bytes, over the limit of ${policy.bytesMax}`)
  const chunks: Uint8Array[] = []
  let size = 0
  try {
    for await (const chunk of response.body ?? []) {
      size += chunk.length
      if (size > policy.bytesMax) break
      chunks.push(chunk)
    }
  } catch (error) {
    throw new MediaDownloadError(caller.channel, `the body was cut: ${describeError(error, caller.secrets)}`, {
      retryable: true,
      cause: error,
    })
  }
  if (size > policy.bytesMax) throw await refuse('size', `the media is over the limit of ${policy.bytesMax} bytes`)
  return Buffer.concat(chunks)
}

/**
 * The content types a download of media the channel declared as `mimeType` may answer with: the
 * same kind (`image/*` for `image/jpeg`), or an untyped `application/octet-stream`. Undefined
 * (anything) when the channel declared nothing.
 */
export function declaredContentTypes(mimeType: string | undefined): { contentTypes?: readonly string[] } {
  const kind = /^([a-z]+)\/[\w.+-]+/i.exec(mimeType ?? '')?.[1]?.toLowerCase()
  return kind ? { contentTypes: [`${kind}/*`, 'application/octet-stream', 'binary/octet-stream'] } : {}
}

/** Why `header` is not one of `accepted`, or undefined when it is (or nothing is declared). */
function contentTypeProblem(header: string | undefined, accepted: readonly string[] | undefined): string | undefined {
  // A server that names no type contradicts nothing the channel declared.
  if (!accepted || header === undefined) return undefined
  const type = header.split(';')[0]!.trim().toLowerCase()
  const ok = accepted.some((entry) => (entry.endsWith('/*') ? type.startsWith(entry.slice(0, -1)) : type === entry))
  return ok ? undefined : `the content type "${type}" is not the declared kind (${accepted.join(', ')})`
}

/** The option of every provider that downloads media: where a test double serves it. */
export interface MediaTestOriginsOption {
  /**
   * Exact origins a test double serves media from (`http://127.0.0.1:8080`): downloads from these
   * origins, and only these, may use plain HTTP and a loopback or private address. For tests and
   * local development; leave it unset in production. @default none
   */
  mediaTestOrigins?: readonly string[]
}

/**
 * The exact origins of `mediaTestOrigins` and of any other configured URL (an API root a test
 * double serves); a value that is not a URL is the channel's `ProviderConfigError`.
 */
export function configuredOrigins(channel: string, ...values: (readonly string[] | string | undefined)[]): string[] {
  const urls = values.flatMap((value) => (value === undefined ? [] : typeof value === 'string' ? [value] : [...value]))
  return urls.map((url) => {
    try {
      return new URL(url).origin
    } catch {
      throw new ProviderConfigError(
        channel,
        `"${url}" is not a URL: mediaTestOrigins and API roots are origins such as http://127.0.0.1:8080`,
      )
    }
  })
}
