/**
 * TLS for botmesh's own connections to Redis and PostgreSQL (docs/security.md, "Encrypted
 * connections"): one shape of settings for both stores, checked when the backend is built, its
 * files read when it starts (so a certificate renewed on disk is used by the next start), and one
 * rule for what a certificate the client refused becomes.
 */
import { readFile } from 'node:fs/promises'
import type { ConnectionOptions } from 'node:tls'
import { ConfigError, TlsCertificateError } from '../../core/errors/errors.js'
import { optionNames, refuseUnknownOptions } from '../../core/backend-internals.js'

/**
 * TLS settings of a connection botmesh opens. Each PEM may be given as text (or a Buffer) or as a
 * file read on start, not both. Without `ca`, the server's certificate must be signed by one of
 * the authorities Node trusts by default.
 */
export interface StoreTlsOptions {
  /** PEM of the certificate authorities that sign the server's certificate. @default Node's bundled CAs */
  ca?: string | Buffer
  /** A PEM file to read `ca` from when the backend starts. */
  caFile?: string
  /** PEM of a client certificate, for a server that asks for one (Redis `tls-auth-clients`, PostgreSQL `cert` authentication). Needs `key`. */
  cert?: string | Buffer
  /** A PEM file to read `cert` from when the backend starts. */
  certFile?: string
  /** PEM of the client certificate's private key, unencrypted. */
  key?: string | Buffer
  /** A PEM file to read `key` from when the backend starts (keep it readable by the bot's user only). */
  keyFile?: string
  /** The name the server's certificate must carry, when it is not the host connected to. @default the host */
  servername?: string
}

/** The names `tls` takes. */
export const TLS_OPTION_NAMES = optionNames<StoreTlsOptions>({
  ca: true,
  caFile: true,
  cert: true,
  certFile: true,
  key: true,
  keyFile: true,
  servername: true,
})

/** What the client checks of the server's certificate: its chain and name, its chain only, nothing. */
export type TlsVerification = 'full' | 'ca' | 'none'

/** The PEM settings, each given inline or as a file. */
const PEMS = [
  { inline: 'ca', file: 'caFile', marker: 'CERTIFICATE' },
  { inline: 'cert', file: 'certFile', marker: 'CERTIFICATE' },
  { inline: 'key', file: 'keyFile', marker: 'PRIVATE KEY' },
] as const

/** Refuses settings that cannot work, before anything connects. `owner` names them in messages (`RedisDurability: tls`). */
export function checkTlsOptions(owner: string, tls: StoreTlsOptions): void {
  refuseUnknownOptions(owner, tls, TLS_OPTION_NAMES, {
    rejectUnauthorized: 'botmesh always checks the server certificate; give its CA (caFile) instead',
    cacert: 'caFile',
    sslrootcert: 'caFile',
  })
  for (const { inline, file } of PEMS) {
    if (tls[inline] !== undefined && tls[file] !== undefined) throw new ConfigError(`${owner}: give ${inline} or ${file}, not both`)
    const pem = tls[inline]
    if (pem !== undefined && !(Buffer.isBuffer(pem) || (typeof pem === 'string' && pem.length > 0)))
      throw new ConfigError(`${owner}.${inline} must be PEM text or a Buffer, got ${typeof pem}`)
    const path = tls[file]
    if (path !== undefined && !(typeof path === 'string' && path.length > 0))
      throw new ConfigError(`${owner}.${file} must be a file path, got ${JSON.stringify(path)}`)
  }
  const hasCert = tls.cert !== undefined || tls.certFile !== undefined
  const hasKey = tls.key !== undefined || tls.keyFile !== undefined
  if (hasCert !== hasKey) throw new ConfigError(`${owner}: a client certificate needs its key: give cert/certFile and key/keyFile together`)
  if (tls.servername !== undefined && (typeof tls.servername !== 'string' || tls.servername === ''))
    throw new ConfigError(`${owner}.servername must be a host name, got ${JSON.stringify(tls.servername)}`)
}

/** The settings as Node's `tls.connect` takes them, files read now; an unreadable or non-PEM file is a `ConfigError` naming it. */
export async function resolveTls(owner: string, tls: StoreTlsOptions, verification: TlsVerification = 'full'): Promise<ConnectionOptions> {
  const resolved: ConnectionOptions = {}
  for (const { inline, file, marker } of PEMS) {
    const path = tls[file]
    const pem = path === undefined ? tls[inline] : await readPem(`${owner}.${file}`, path, marker)
    if (pem !== undefined) resolved[inline] = pem
  }
  if (tls.servername !== undefined) resolved.servername = tls.servername
  // 'ca' is libpq's verify-ca: the chain is checked, the name is not.
  if (verification === 'ca') resolved.checkServerIdentity = () => undefined
  if (verification === 'none') resolved.rejectUnauthorized = false
  return resolved
}

async function readPem(what: string, path: string, marker: string): Promise<Buffer> {
  let content: Buffer
  try {
    content = await readFile(path)
  } catch (error) {
    throw new ConfigError(`${what}: cannot read ${path} (${(error as { code?: string }).code ?? String(error)})`)
  }
  // Only the header is looked at: the file's content (a private key) never reaches a message.
  if (!content.includes(`-----BEGIN `) || !content.toString('latin1').includes(marker))
    throw new ConfigError(`${what}: ${path} holds no PEM ${marker.toLowerCase()} (a "-----BEGIN … ${marker}-----" block)`)
  return content
}

/**
 * A URL without the query parameters `names`, and the values they held (the last of a repeated one).
 * The rest of the URL is kept as written, so a driver parses it as before.
 */
export function takeUrlParams(url: string, names: readonly string[]): { url: string; taken: Record<string, string> } {
  const question = url.indexOf('?')
  if (question < 0) return { url, taken: {} }
  const hash = url.indexOf('#', question)
  const query = url.slice(question + 1, hash < 0 ? undefined : hash)
  const taken: Record<string, string> = {}
  const kept = query.split('&').filter((pair) => {
    const equals = pair.indexOf('=')
    const name = decoded(equals < 0 ? pair : pair.slice(0, equals))
    if (!names.includes(name)) return pair !== ''
    taken[name] = equals < 0 ? '' : decoded(pair.slice(equals + 1))
    return false
  })
  if (Object.keys(taken).length === 0) return { url, taken }
  return { url: `${url.slice(0, question)}${kept.length > 0 ? `?${kept.join('&')}` : ''}${hash < 0 ? '' : url.slice(hash)}`, taken }
}

/** A query component decoded as a form field; a malformed escape is left as written. */
function decoded(component: string): string {
  try {
    return decodeURIComponent(component.replace(/\+/g, ' '))
  } catch {
    return component
  }
}

/** The codes Node and OpenSSL give a server certificate the client does not trust. */
const REFUSED_CERTIFICATE_CODES = new Set([
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_SIGNATURE_FAILURE',
  'CERT_NOT_YET_VALID',
  'CERT_HAS_EXPIRED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_REVOKED',
  'INVALID_CA',
  'INVALID_PURPOSE',
  'PATH_LENGTH_EXCEEDED',
  'HOSTNAME_MISMATCH',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_TLS_CERT_ALTNAME_FORMAT',
])

/** Where a store's caller gives a CA and a certificate name, for the advice a refusal carries. */
export interface TlsSettingNames {
  ca: string
  servername: string
}

/**
 * A `TlsCertificateError` when `error` (or an error inside an AggregateError) is the client's
 * refusal of the server's certificate; undefined for anything else.
 * @param target the server, without credentials (`Redis at host:port, database 0`).
 */
export function certificateRefusal(error: unknown, target: string, names: TlsSettingNames): TlsCertificateError | undefined {
  if (error instanceof AggregateError) {
    for (const inner of error.errors) {
      const found = certificateRefusal(inner, target, names)
      if (found) return found
    }
    return undefined
  }
  const code = (error as { code?: unknown } | null | undefined)?.code
  if (!(error instanceof Error) || typeof code !== 'string' || !REFUSED_CERTIFICATE_CODES.has(code)) return undefined
  const advice = /ALTNAME|HOSTNAME/.test(code)
    ? `the certificate is made out to another name: connect by a name it carries, or give that name as ${names.servername}`
    : /EXPIRED|NOT_YET_VALID|REVOKED/.test(code)
      ? 'the certificate is not valid now: renew it on the server'
      : `it is not signed by an authority botmesh was told to trust: give the CA's certificate as ${names.ca}`
  return new TlsCertificateError(`${target} showed a TLS certificate botmesh refuses (${error.message}; ${code}): ${advice}`, code, error)
}
