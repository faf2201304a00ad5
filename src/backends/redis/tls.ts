/**
 * Which TLS settings botmesh's own Redis client uses. A `rediss://` URL turns TLS on with Node's
 * trusted CAs; the `tls` option (or the URL parameters `caFile`, `certFile`, `keyFile`,
 * `servername`) says which CA to trust, which client certificate to show and which name the
 * server's certificate must carry (docs/backends/redis.md, "TLS"). Settings that would be ignored,
 * or would turn TLS on behind a `redis://` URL that reads as clear text, are refused.
 */
import type { ClusterNode, ClusterOptions } from 'ioredis'
import { ConfigError } from '../../core/errors/errors.js'
import { checkTlsOptions, takeUrlParams, type StoreTlsOptions, type TlsSettingNames } from '../common/tls.js'

/** The URL parameters that carry TLS settings, each named as the `tls` option it fills. */
export const REDIS_TLS_PARAMS = ['caFile', 'certFile', 'keyFile', 'servername'] as const

/** Where a Redis caller gives the CA and the certificate's name (for the advice of a refused certificate). */
export const REDIS_TLS_SETTING_NAMES: TlsSettingNames = {
  ca: 'tls.caFile (?caFile= in a URL)',
  servername: 'tls.servername (?servername= in a URL)',
}

/** What the connection is built from, as far as TLS goes. */
interface TlsSources {
  client?: unknown
  url?: string
  cluster?: ClusterNode[] | { nodes: ClusterNode[]; options?: ClusterOptions }
  tls?: StoreTlsOptions
}

/** The URL to give ioredis (TLS parameters taken out) and the TLS settings, checked. */
export function redisTlsSettings(sources: TlsSources): { url: string | undefined; tls: StoreTlsOptions | undefined } {
  const fromUrl = sources.url === undefined ? { url: undefined, tls: undefined } : takeTlsParams(sources.url)
  if (fromUrl.tls && sources.tls) throw new ConfigError('give the Redis TLS settings in the URL (?caFile=…) or in the tls option, not both')
  const tls = sources.tls ?? fromUrl.tls
  if (tls === undefined) return { url: fromUrl.url, tls }
  if (sources.client !== undefined)
    throw new ConfigError('tls applies to a connection botmesh opens (url, cluster); set TLS on the client you pass')
  if (fromUrl.url !== undefined && !/^rediss:/i.test(fromUrl.url))
    throw new ConfigError('TLS settings need a rediss:// URL (redis:// is a connection in clear text)')
  const cluster = sources.cluster
  if (cluster !== undefined && !Array.isArray(cluster) && cluster.options?.redisOptions?.tls !== undefined)
    throw new ConfigError('give the Redis Cluster TLS settings in tls or in cluster.options.redisOptions.tls, not both')
  checkTlsOptions('tls', tls)
  return { url: fromUrl.url, tls }
}

/** A URL without its TLS parameters, and the settings they held (undefined when it had none). */
export function takeTlsParams(url: string): { url: string; tls: StoreTlsOptions | undefined } {
  const { url: rest, taken } = takeUrlParams(url, REDIS_TLS_PARAMS)
  return { url: rest, tls: Object.keys(taken).length > 0 ? taken : undefined }
}
