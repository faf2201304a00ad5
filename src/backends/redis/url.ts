/**
 * The backend URLs (docs/cli.md) for Redis, turned into `RedisDurability` options (the CLI's
 * `--backend`): `redis://[user:password@]host:port[/db]?prefix=P`, `rediss://…` (TLS), and
 * `redis+cluster://[user:password@]h1:p1,h2:p2?prefix=P` (`rediss+cluster://` with TLS), and
 * `redis+sentinel://[user:password@]s1:p1[,s2:p2…]/<master name>[/db]?prefix=P` (sentinel.ts;
 * `&sentinelUsername=…&sentinelPassword=…`; `rediss+sentinel://` for TLS to the sentinels and the primary);
 * `&acceptEviction=true` runs on a server whose maxmemory-policy may evict keys (eviction-policy.ts);
 * `&requirePersistence=true` refuses a server without AOF (persistence-check.ts);
 * `&waitReplicas=N&waitTimeoutMs=T` make a journal write wait for N replicas (replica-wait.ts);
 * `&caFile=…&certFile=…&keyFile=…&servername=…` are the TLS settings of a `rediss` URL (tls.ts).
 */
import { ConfigError } from '../../core/errors/errors.js'
import type { RedisConnectionOptions } from './connection-options.js'
import { DEFAULT_PREFIX } from './keys.js'
import { REDIS_TLS_PARAMS } from './tls.js'
import { SENTINEL_DEFAULT_PORT, type RedisSentinelConfig } from './sentinel.js'
import { REPLICA_WAIT_PARAMS, ReplicaWait, type ReplicaWaitOptions } from './replica-wait.js'

/** Options for `new RedisDurability(…)` / `new RedisStore(…)` from a backend URL. */
export function redisOptionsFromUrl(backendUrl: string): RedisConnectionOptions & {
  /** The key prefix, from the URL's `prefix` parameter. @default 'botmesh' */
  prefix: string
} {
  if (/^rediss?\+sentinel:/i.test(backendUrl)) return sentinelOptionsFromUrl(backendUrl)
  const match = /^(rediss?)(\+cluster)?:\/\/([^?#]*)(?:\?([^#]*))?$/.exec(backendUrl)
  if (!match)
    throw new ConfigError(
      `not a Redis backend URL: ${redactRedisUrl(backendUrl)} (expected redis://, rediss://, redis+cluster:// or redis+sentinel://)`,
    )
  const [, scheme, cluster, rest, query] = match as unknown as [string, string, string | undefined, string, string | undefined]
  const params = new URLSearchParams(query ?? '')
  const prefix = params.get('prefix') ?? DEFAULT_PREFIX
  const accepted = {
    ...(params.get('acceptEviction') === 'true' ? { acceptEviction: true } : {}),
    ...(params.get('requirePersistence') === 'true' ? { requirePersistence: true } : {}),
    ...replicaWaitParams(params, backendUrl),
  }
  for (const name of ['prefix', 'acceptEviction', 'requirePersistence', ...REPLICA_WAIT_PARAMS]) params.delete(name)
  if (!cluster) {
    const remaining = params.toString()
    return { url: `${scheme}://${rest}${remaining ? `?${remaining}` : ''}`, prefix, ...accepted }
  }
  const at = rest.lastIndexOf('@')
  const credentials = at >= 0 ? rest.slice(0, at) : ''
  const hosts = (at >= 0 ? rest.slice(at + 1) : rest).replace(/\/$/, '')
  const nodes = hosts
    .split(',')
    .filter(Boolean)
    .map((hostPort) => hostAndPort(hostPort, backendUrl, 'cluster node'))
  if (nodes.length === 0) throw new ConfigError(`${redactRedisUrl(backendUrl)} names no cluster nodes`)
  const [username, password] = credentials ? credentials.split(':', 2).map((part) => decodeURIComponent(part)) : []
  const redisOptions = {
    ...(username ? { username } : {}),
    ...(password ? { password } : {}),
  }
  const tls = Object.fromEntries(REDIS_TLS_PARAMS.flatMap((name) => (params.has(name) ? [[name, params.get(name)!]] : [])))
  if (scheme !== 'rediss' && Object.keys(tls).length > 0)
    throw new ConfigError(`${redactRedisUrl(backendUrl)}: TLS settings need rediss+cluster:// (redis+cluster:// is clear text)`)
  return { cluster: { nodes, options: { redisOptions } }, prefix, ...accepted, ...(scheme === 'rediss' ? { tls } : {}) }
}

/** The parameters a sentinel URL may carry (any other is refused, naming these). */
const SENTINEL_URL_PARAMS = [
  'prefix',
  'acceptEviction',
  'requirePersistence',
  ...REPLICA_WAIT_PARAMS,
  'sentinelUsername',
  'sentinelPassword',
  ...REDIS_TLS_PARAMS,
]

/**
 * `redis+sentinel://[user:password@]s1:p1[,s2:p2…]/<master name>[/db]?…`: the user-info logs in to
 * the primary, `sentinelUsername` / `sentinelPassword` to the sentinels; `rediss+sentinel://`
 * speaks TLS to both (with the TLS parameters for both).
 */
function sentinelOptionsFromUrl(backendUrl: string): RedisConnectionOptions & { prefix: string } {
  const shown = redactRedisUrl(backendUrl)
  const expected = 'expected redis+sentinel://host:port[,host:port…]/<master name>[/db]'
  const match = /^(rediss?)\+sentinel:\/\/([^?#]*)(?:\?([^#]*))?$/i.exec(backendUrl)
  if (!match) throw new ConfigError(`${shown} is not a valid Sentinel URL (${expected})`)
  const [, scheme, rest, query] = match as unknown as [string, string, string, string | undefined]
  const at = rest.lastIndexOf('@')
  const credentials = at >= 0 ? rest.slice(0, at) : ''
  const [hosts = '', name = '', db, ...extra] = (at >= 0 ? rest.slice(at + 1) : rest).split('/')
  const sentinels = hosts
    .split(',')
    .filter(Boolean)
    .map((hostPort) => hostAndPort(hostPort, backendUrl, 'sentinel', SENTINEL_DEFAULT_PORT))
  if (sentinels.length === 0) throw new ConfigError(`${shown} names no sentinel (${expected})`)
  if (name === '') throw new ConfigError(`${shown} names no master (${expected}: the name in "sentinel monitor <name> …")`)
  if (extra.length > 0 || (db !== undefined && db !== '' && !/^\d+$/.test(db)))
    throw new ConfigError(
      `${shown}: after the master name only a database number may follow (${expected}), got "/${[db, ...extra].join('/')}"`,
    )
  const params = new URLSearchParams(query ?? '')
  const unknown = [...params.keys()].filter((key) => !SENTINEL_URL_PARAMS.includes(key))
  if (unknown.length > 0)
    throw new ConfigError(
      `${shown}: unknown parameter ${unknown.map((key) => `"${key}"`).join(', ')} (a Sentinel URL takes ${SENTINEL_URL_PARAMS.join(', ')})`,
    )
  const tls = Object.fromEntries(REDIS_TLS_PARAMS.flatMap((key) => (params.has(key) ? [[key, params.get(key)!]] : [])))
  if (scheme.toLowerCase() !== 'rediss' && Object.keys(tls).length > 0)
    throw new ConfigError(`${shown}: TLS settings need rediss+sentinel:// (redis+sentinel:// is clear text)`)
  const colon = credentials.indexOf(':')
  const [username, password] = (colon >= 0 ? [credentials.slice(0, colon), credentials.slice(colon + 1)] : [credentials]).map((part) =>
    decodeURIComponent(part),
  )
  const sentinel: RedisSentinelConfig = {
    sentinels,
    name: decodeURIComponent(name),
    ...(db ? { db: Number(db) } : {}),
    ...(username ? { username } : {}),
    ...(password ? { password } : {}),
    ...(params.get('sentinelUsername') ? { sentinelUsername: params.get('sentinelUsername')! } : {}),
    ...(params.get('sentinelPassword') ? { sentinelPassword: params.get('sentinelPassword')! } : {}),
  }
  return {
    sentinel,
    prefix: params.get('prefix') ?? DEFAULT_PREFIX,
    ...(params.get('acceptEviction') === 'true' ? { acceptEviction: true } : {}),
    ...(params.get('requirePersistence') === 'true' ? { requirePersistence: true } : {}),
    ...replicaWaitParams(params, backendUrl),
    ...(scheme.toLowerCase() === 'rediss' ? { tls } : {}),
  }
}

/**
 * A `redis://` / `rediss://` URL given as the `url` option, with `waitReplicas` / `waitTimeoutMs`
 * taken out of it (ioredis would take them for options of its own and ignore them).
 */
export function takeReplicaWaitParams(url: string): ReplicaWaitOptions & { url: string } {
  const query = url.indexOf('?')
  const params = new URLSearchParams(query < 0 ? '' : url.slice(query + 1))
  if (!REPLICA_WAIT_PARAMS.some((name) => params.has(name))) return { url }
  const waiting = replicaWaitParams(params, url)
  for (const name of REPLICA_WAIT_PARAMS) params.delete(name)
  const remaining = params.toString()
  return { ...waiting, url: `${url.slice(0, query)}${remaining ? `?${remaining}` : ''}` }
}

/** `waitReplicas` / `waitTimeoutMs` from a URL's parameters: whole numbers, checked as the options are. */
function replicaWaitParams(params: URLSearchParams, backendUrl: string): ReplicaWaitOptions {
  const options: ReplicaWaitOptions = {}
  for (const name of REPLICA_WAIT_PARAMS) {
    const value = params.get(name)
    if (value === null) continue
    if (!/^\d+$/.test(value)) throw new ConfigError(`${redactRedisUrl(backendUrl)}: ${name} must be a whole number, got "${value}"`)
    options[name] = Number(value)
  }
  try {
    ReplicaWait.of(options)
  } catch (error) {
    throw new ConfigError(`${redactRedisUrl(backendUrl)}: ${(error as Error).message}`)
  }
  return options
}

/** The URL with its passwords (the user-info's, a `sentinelPassword=`) replaced by `***`, for messages and logs. */
export function redactRedisUrl(backendUrl: string): string {
  return backendUrl.replace(/^([a-z+]+:\/\/[^:/@]*:)[^@]*@/i, '$1***@').replace(/([?&]sentinelPassword=)[^&#]*/gi, '$1***')
}

/** `host:port` (an IPv6 host in brackets) of a cluster node or a sentinel; `defaultPort` without one. */
export function hostAndPort(hostPort: string, backendUrl: string, what: string, defaultPort = 6379): { host: string; port: number } {
  const colon = hostPort.lastIndexOf(':')
  const bracketed = hostPort.startsWith('[') && hostPort.endsWith(']')
  const host = colon >= 0 && !bracketed ? hostPort.slice(0, colon) : hostPort
  const port = colon >= 0 && !bracketed ? Number(hostPort.slice(colon + 1)) : defaultPort
  if (!host || !Number.isInteger(port) || port <= 0 || port > 65_535) {
    throw new ConfigError(`bad ${what} "${hostPort}" in ${redactRedisUrl(backendUrl)} (expected host:port)`)
  }
  return { host: host.replace(/^\[(.*)\]$/, '$1'), port }
}
