/**
 * Backend URLs (docs/cli.md: the table of backend URLs): what `--backend` / `BOTMESH_BACKEND` may say, parsed into a target
 * `openBackend` can open. Parsing loads no driver and touches nothing; every message it makes
 * carries the URL with its password replaced by `***`.
 */
import { BackendUrlError, ERROR_CODES } from '../../core/errors/errors.js'
import { redisOptionsFromUrl } from '../../backends/redis/url.js'
import type { RedisConnectionOptions } from '../../backends/redis/connection.js'
import { TABLE_PREFIX_PATTERN } from '../../backends/postgres/tables.js'

/** The kinds of backend a URL can name. */
export const BACKEND_KINDS = ['memory', 'file', 'sqlite', 'redis', 'postgres', 'events'] as const
export type BackendKind = (typeof BACKEND_KINDS)[number]

/** Bare names: a throwaway instance (temp dir, random prefix), never an operator's data. */
export const THROWAWAY_NAMES: Readonly<Record<string, BackendKind>> = {
  memory: 'memory',
  file: 'file',
  sqlite: 'sqlite',
  redis: 'redis',
  postgres: 'postgres',
  events: 'events',
  'events-shared': 'events',
}

interface TargetBase {
  /** The URL as given, its password replaced by `***`: the only form of it any message may show. */
  label: string
  /** Passwords the URL holds, to scrub from any text (a driver's error may echo them). */
  secrets: string[]
}

/** Where a backend URL points. */
export type BackendTarget =
  | (TargetBase & { kind: 'memory'; throwaway: true })
  | (TargetBase & { kind: 'file' | 'sqlite'; throwaway: true })
  | (TargetBase & { kind: 'file' | 'sqlite'; throwaway: false; path: string })
  | (TargetBase & { kind: 'redis'; throwaway: true })
  | (TargetBase & { kind: 'redis'; throwaway: false; redis: RedisConnectionOptions & { prefix: string; prefixGiven: boolean } })
  | (TargetBase & { kind: 'postgres'; throwaway: true })
  | (TargetBase & {
      kind: 'postgres'
      throwaway: false
      connectionString: string
      tablePrefix: string | undefined
      /** `&requirePersistence=true`: refuse a server with `synchronous_commit` or `fsync` off. */
      requirePersistence: boolean
    })
  | (TargetBase & { kind: 'events'; throwaway: boolean; shared: boolean; path?: string })

const REDIS_SCHEMES = new Set(['redis', 'rediss', 'redis+cluster', 'rediss+cluster', 'redis+sentinel', 'rediss+sentinel'])
const POSTGRES_SCHEMES = new Set(['postgres', 'postgresql'])
const EXPECTED =
  'sqlite:<file>, <file>.db, file:<file>, events:<file>, events+shared:<file>, redis://host:port, rediss://host:port (TLS), redis+cluster://h1:p1,h2:p2, rediss+cluster://h1:p1,h2:p2, redis+sentinel://s1:p1,s2:p2/<master name>, postgres://user@host/db, postgresql://user@host/db, or a bare name (memory, file, sqlite, redis, postgres)'

/** Parses a backend URL; throws `BackendUrlError` (its message never shows a password). */
export function parseBackendUrl(input: string): BackendTarget {
  const url = input.trim()
  const base = { label: redactBackendUrl(url), secrets: secretsOf(url) }
  if (url === '') throw new BackendUrlError(`the backend URL is empty; expected ${EXPECTED}`)
  const bare = THROWAWAY_NAMES[url]
  if (bare === 'events') return { ...base, kind: 'events', throwaway: true, shared: url === 'events-shared' }
  if (bare) return { ...base, kind: bare, throwaway: true } as BackendTarget
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase()
  if (!scheme || /^[a-z]$/i.test(scheme)) {
    if (/\.db$/i.test(url)) return { ...base, kind: 'sqlite', throwaway: false, path: url }
    const hint = /\.json$/i.test(url) ? ` (did you mean file:${base.label}?)` : ''
    throw new BackendUrlError(`"${base.label}" is not a backend URL${hint}; expected ${EXPECTED}`, ERROR_CODES.BACKEND_SCHEME_UNKNOWN)
  }
  if (scheme === 'sqlite' || scheme === 'file') return { ...base, kind: scheme, throwaway: false, path: pathOf(url, scheme, base.label) }
  if (scheme === 'events' || scheme === 'events+shared') {
    return { ...base, kind: 'events', throwaway: false, shared: scheme === 'events+shared', path: pathOf(url, scheme, base.label) }
  }
  if (REDIS_SCHEMES.has(scheme)) return { ...base, kind: 'redis', throwaway: false, redis: redisTarget(url, base.label) }
  if (POSTGRES_SCHEMES.has(scheme)) return { ...base, kind: 'postgres', throwaway: false, ...postgresTarget(url, base.label) }
  throw new BackendUrlError(
    `unknown backend scheme "${scheme}:" in ${base.label}; expected ${EXPECTED}`,
    ERROR_CODES.BACKEND_SCHEME_UNKNOWN,
  )
}

/**
 * A URL's user-info ends at the LAST `@` before the host, as the WHATWG URL parser (and so every
 * driver) reads it: in `redis://bot:S3cr@tPass@host` the password is `S3cr@tPass`, all of it.
 * Groups: the scheme and `//`, the user and its `:`, the password.
 */
const USER_INFO = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#@:]*:)([^/?#]*)@/i

/** The URL with the password of its user-info (and any `password=` parameter) replaced by `***`. */
export function redactBackendUrl(url: string): string {
  return url.replace(USER_INFO, '$1$2***@').replace(/([?&](?:sentinelPassword|password|pass|pwd)=)[^&#]*/gi, '$1***')
}

/** Every password a URL holds, raw, percent-decoded and as the URL parser writes it, longest first (so a longer one is scrubbed whole). */
export function secretsOf(url: string): string[] {
  const found = new Set<string>()
  const password = USER_INFO.exec(url)?.[3]
  if (password !== undefined) found.add(password)
  for (const match of url.matchAll(/[?&](?:sentinelPassword|password|pass|pwd)=([^&#]*)/gi)) found.add(match[1]!)
  for (const secret of [...found]) {
    // The parser writes a raw `@` as %40 (a driver's error may echo that form), and a percent-escape decoded.
    found.add(secret.replaceAll('@', '%40'))
    try {
      found.add(decodeURIComponent(secret))
    } catch {
      // A malformed escape: the raw form is scrubbed already.
    }
  }
  return [...found].filter((secret) => secret.length > 0).sort((a, b) => b.length - a.length)
}

/** Replaces every secret in `text` by `***`. */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text
  for (const secret of secrets) out = out.split(secret).join('***')
  return out
}

function pathOf(url: string, scheme: string, label: string): string {
  let rest = url.slice(scheme.length + 1)
  if (rest.startsWith('//')) rest = rest.slice(2)
  if (rest === '')
    throw new BackendUrlError(
      `${label} names no file; expected ${scheme}:<path>, e.g. ${scheme}:./data/${scheme === 'sqlite' ? 'bot.db' : 'durable.json'}`,
    )
  return rest
}

function redisTarget(url: string, label: string): RedisConnectionOptions & { prefix: string; prefixGiven: boolean } {
  // A Cluster's or Sentinel's URL names several hosts, which the URL parser refuses: url.ts reads those.
  const severalHosts = /\+(cluster|sentinel):\/\//i.test(url)
  if (!severalHosts) {
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      throw new BackendUrlError(`${label} is not a valid Redis URL (expected redis://[user:password@]host:port[/db]?prefix=P)`)
    }
    if (!parsed.hostname) throw new BackendUrlError(`${label} names no host (expected redis://host:port)`)
    const db = parsed.pathname.replace(/^\//, '')
    if (db !== '' && !/^\d+$/.test(db))
      throw new BackendUrlError(`${label}: the database must be a number (redis://host:port/0), got "${db}"`)
  }
  try {
    const options = redisOptionsFromUrl(url)
    return { ...options, prefixGiven: /[?&]prefix=/.test(url) }
  } catch (error) {
    throw new BackendUrlError(error instanceof Error ? scrubSecrets(error.message, secretsOf(url)) : label)
  }
}

function postgresTarget(
  url: string,
  label: string,
): { connectionString: string; tablePrefix: string | undefined; requirePersistence: boolean } {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new BackendUrlError(
      `${label} is not a valid PostgreSQL URL (expected postgres://user[:password]@host:port/database?tablePrefix=T)`,
    )
  }
  if (!parsed.hostname && !parsed.searchParams.get('host'))
    throw new BackendUrlError(`${label} names no host (expected postgres://user@host:port/database)`)
  const tablePrefix = parsed.searchParams.get('tablePrefix') ?? undefined
  if (tablePrefix !== undefined && !TABLE_PREFIX_PATTERN.test(tablePrefix)) {
    throw new BackendUrlError(`${label}: tablePrefix must be letters, digits and underscores, got ${JSON.stringify(tablePrefix)}`)
  }
  const requirePersistence = parsed.searchParams.get('requirePersistence') === 'true'
  parsed.searchParams.delete('tablePrefix')
  parsed.searchParams.delete('requirePersistence')
  return { connectionString: parsed.toString(), tablePrefix, requirePersistence }
}
