/**
 * Hosted media URLs: which ones a codec journals and accepts back. A stored URL is read back from
 * a journal an attacker may have edited, and the bot then fetches it, so anything that could point
 * the fetch elsewhere is refused: a host outside the allowlist (lookalikes such as
 * `fbcdn.net.evil.com` included), userinfo (`https://fbcdn.net@evil.com`), a scheme downgrade, IP
 * literals, `localhost` and other names that only resolve inside a network.
 */
import { ProviderConfigError } from './errors.js'
import { MEDIA_REF_LIMITS } from './limits.js'

/** What a URL must be to be journaled and accepted back. */
export interface UrlPolicy {
  /** Accepted hosts: a host matches itself and its subdomains. Without it any public host name is accepted. */
  hosts?: readonly string[]
  /** Accepted schemes. @default ['https:'] */
  schemes?: readonly ('https:' | 'http:')[]
  /** Exact origins accepted besides the hosts (an API origin such as `https://api.twilio.com`). */
  origins?: readonly string[]
}

/**
 * Whether a query parameter carries a credential (a token, a key, a secret, a password) rather
 * than the URL's own signature. Such parameters are cut before a URL is journaled (the provider
 * adds its credentials again at download time) and refused on read. A name is read as words
 * (`auth_token`, `apiKey`, `X-Amz-Security-Token` → auth token, api key, x amz security token);
 * names written as one word are caught by the longer marks (`authtoken`, `clientsecret`). A URL's
 * own signature (`signature`, `X-Amz-Signature`, `hm`, `oh`) is kept: it grants only that object,
 * until it expires, and the URL downloads nothing without it.
 */
export function isCredentialParam(name: string): boolean {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
  if (words.some((word) => CREDENTIAL_WORDS.has(word))) return true
  const joined = words.join('')
  return CREDENTIAL_MARKS.some((mark) => joined.includes(mark))
}

/** Words that name a credential wherever they stand in a parameter name. */
const CREDENTIAL_WORDS = new Set([
  'token',
  'key',
  'apikey',
  'secret',
  'password',
  'passwd',
  'pwd',
  'auth',
  'authorization',
  'bearer',
  'jwt',
])

/** Marks that name a credential inside a one-word parameter name. */
const CREDENTIAL_MARKS = ['token', 'secret', 'passw', 'apikey', 'appkey', 'accesskey', 'privatekey', 'authorization']

/** The first credential parameter in a query string (`a=1&auth_token=x`, with or without `?`), if any. */
export function credentialParamIn(query: string): string | undefined {
  for (const name of new URLSearchParams(query).keys()) if (isCredentialParam(name)) return name
  return undefined
}

/** Host names that only resolve inside a network (never a CDN's). */
const PRIVATE_SUFFIXES = ['localhost', 'local', 'internal', 'lan', 'home.arpa', 'localdomain']

/** Why `value` is not an acceptable media URL under `policy`, or undefined when it is. */
export function urlProblem(value: unknown, policy: UrlPolicy): string | undefined {
  if (typeof value !== 'string') return 'the url is not a string'
  if (value.length === 0 || value.length > MEDIA_REF_LIMITS.urlLengthMax)
    return `the url is empty or longer than ${MEDIA_REF_LIMITS.urlLengthMax} characters`
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return 'the url cannot be parsed'
  }
  // Only the parser's own spelling is accepted: backslashes, tabs, odd case or a missing `//` would
  // otherwise make two readers disagree on the host.
  if (url.href !== value) return 'the url is not in canonical form'
  if (url.username !== '' || url.password !== '') return 'the url carries userinfo'
  const credential = credentialParamIn(url.search)
  if (credential !== undefined) return `the url carries a credential parameter (${credential})`
  if (policy.origins?.includes(url.origin)) return undefined
  const schemes = policy.schemes ?? ['https:']
  if (!(schemes as readonly string[]).includes(url.protocol)) return `the scheme ${url.protocol} is not accepted (${schemes.join(', ')})`
  const host = url.hostname
  if (isIpLiteral(host)) return 'the host is an IP literal'
  if (!host.includes('.') || host.endsWith('.')) return `the host ${host} is not a public host name`
  if (PRIVATE_SUFFIXES.some((suffix) => host === suffix || host.endsWith(`.${suffix}`)))
    return `the host ${host} only resolves inside a network`
  if (policy.hosts) {
    if (!policy.hosts.some((allowed) => hostMatches(host, allowed)))
      return `the host ${host} is not on the allowlist (${policy.hosts.join(', ')})`
    // A CDN serves on its scheme's default port; another port on an allowed name is not the CDN.
    if (url.port !== '') return `the port ${url.port} is not the default port`
  }
  return undefined
}

/**
 * The URL as it is journaled: canonical, without userinfo and credential parameters; undefined
 * when what remains is not acceptable under `policy`.
 */
export function journalableUrl(value: unknown, policy: UrlPolicy): string | undefined {
  if (typeof value !== 'string' || value.length > MEDIA_REF_LIMITS.urlLengthMax) return undefined
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return undefined
  }
  url.username = ''
  url.password = ''
  for (const name of [...url.searchParams.keys()]) if (isCredentialParam(name)) url.searchParams.delete(name)
  const href = url.href
  return urlProblem(href, policy) === undefined ? href : undefined
}

/** Whether `host` is `allowed` or one of its subdomains (never a name that merely ends with it). */
export function hostMatches(host: string, allowed: string): boolean {
  const a = allowed.toLowerCase()
  return host === a || host.endsWith(`.${a}`)
}

/** An API root or server URL as the requests are built on it: without its trailing slashes. */
export function withoutTrailingSlashes(url: string): string {
  return url.replace(/\/+$/, '')
}

/** Whether a URL host name (as the WHATWG parser leaves it) is an IPv4 or IPv6 literal. */
export function isIpLiteral(host: string): boolean {
  // The parser turns every IPv4 spelling (decimal, octal, hex) into dotted decimal, and keeps IPv6 in brackets.
  return host.startsWith('[') || /^\d{1,3}(\.\d{1,3}){3}$/.test(host)
}

/** Validates a `mediaRefHosts` option: plain lowercase host names, at least one. */
export function hostList(channel: string, hosts: readonly string[] | undefined, defaults: readonly string[]): readonly string[] {
  const list = hosts ?? defaults
  if (list.length === 0) throw new ProviderConfigError(channel, 'mediaRefHosts must name at least one host')
  for (const host of list) {
    if (!/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(host))
      throw new ProviderConfigError(channel, `mediaRefHosts: "${host}" is not a plain lowercase host name`)
  }
  return [...list]
}
