/**
 * The backend URLs (docs/cli.md) for Redis, turned into `RedisDurability` options (the CLI's
 * `--backend`): `redis://[user:password@]host:port[/db]?prefix=P`, `rediss://…` (TLS), and
 * `redis+cluster://[user:password@]h1:p1,h2:p2?prefix=P` (`rediss+cluster://` with TLS);
 * `&acceptEviction=true` runs on a server whose maxmemory-policy may evict keys (eviction-policy.ts);
 * `&requirePersistence=true` refuses a server without AOF (persistence-check.ts);
 * `&caFile=…&certFile=…&keyFile=…&servername=…` are the TLS settings of a `rediss` URL (tls.ts).
 */
import { ConfigError } from '../../core/errors.js'
import type { RedisConnectionOptions } from './connection.js'
import { DEFAULT_PREFIX } from './keys.js'
import { REDIS_TLS_PARAMS } from './tls.js'

/** Options for `new RedisDurability(…)` / `new RedisStore(…)` from a backend URL. */
export function redisOptionsFromUrl(backendUrl: string): RedisConnectionOptions & {
  /** The key prefix, from the URL's `prefix` parameter. @default 'botmesh' */
  prefix: string
} {
  const match = /^(rediss?)(\+cluster)?:\/\/([^?#]*)(?:\?([^#]*))?$/.exec(backendUrl)
  if (!match)
    throw new ConfigError(`not a Redis backend URL: ${redactRedisUrl(backendUrl)} (expected redis://, rediss:// or redis+cluster://)`)
  const [, scheme, cluster, rest, query] = match as unknown as [string, string, string | undefined, string, string | undefined]
  const params = new URLSearchParams(query ?? '')
  const prefix = params.get('prefix') ?? DEFAULT_PREFIX
  const accepted = {
    ...(params.get('acceptEviction') === 'true' ? { acceptEviction: true } : {}),
    ...(params.get('requirePersistence') === 'true' ? { requirePersistence: true } : {}),
  }
  params.delete('prefix')
  params.delete('acceptEviction')
  params.delete('requirePersistence')
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
    .map((hostPort) => node(hostPort, backendUrl))
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

/** The URL with its password replaced by `***`, for messages and logs. */
export function redactRedisUrl(backendUrl: string): string {
  return backendUrl.replace(/^([a-z+]+:\/\/[^:/@]*:)[^@]*@/i, '$1***@')
}

function node(hostPort: string, backendUrl: string): { host: string; port: number } {
  const colon = hostPort.lastIndexOf(':')
  const host = colon >= 0 ? hostPort.slice(0, colon) : hostPort
  const port = colon >= 0 ? Number(hostPort.slice(colon + 1)) : 6379
  if (!host || !Number.isInteger(port) || port <= 0 || port > 65_535) {
    throw new ConfigError(`bad cluster node "${hostPort}" in ${redactRedisUrl(backendUrl)} (expected host:port)`)
  }
  return { host: host.replace(/^\[(.*)\]$/, '$1'), port }
}
