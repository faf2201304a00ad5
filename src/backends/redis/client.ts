/**
 * botmesh's own ioredis client (connection.ts opens and closes it): a server by URL, a Cluster by
 * its startup nodes, or the primary behind Sentinel (sentinel.ts), each set to fail fast instead
 * of hanging: a command issued while the connection is down is rejected at the next failed
 * reconnection instead of waiting in a queue, and a command in flight when the connection drops is
 * rejected, never silently sent again (its outcome is unknown, which the engine treats like any
 * failed write).
 */
import type { Cluster, ClusterNode, ClusterOptions, Command, Redis, RedisOptions } from 'ioredis'
import type { ConnectionOptions } from 'node:tls'
import { loadDriver } from '../../core/platform/driver.js'
import { REDIS_LIMITS } from './limits.js'
import { sentinelClientOptions, type RedisSentinelConfig } from './sentinel.js'
import { clusterNodes } from './target.js'

/** A standalone client or a Cluster client of ioredis. */
export type RedisClient = Redis | Cluster

/** Where botmesh's own client connects: exactly one of the three. */
export interface ClientSource {
  url?: string
  cluster?: ClusterNode[] | { nodes: ClusterNode[]; options?: ClusterOptions }
  sentinel?: RedisSentinelConfig
}

/** How the client connects: its timeout and TLS (resolved: files read). */
export interface ClientSettings {
  connectTimeoutMs: number
  /** TLS to the server (or every Cluster node, or the primary behind Sentinel). */
  tls?: ConnectionOptions
  /** TLS to the sentinels. */
  sentinelTls?: ConnectionOptions
}

/** A client that connects on `connect()` (lazyConnect), set to fail fast (see the file's comment). */
export async function createRedisClient(source: ClientSource, settings: ClientSettings): Promise<RedisClient> {
  const ioredis = await loadIoredis()
  const reconnect = (attempt: number) => Math.min(attempt * 100, REDIS_LIMITS.reconnectMaxMs)
  const redisOptions: RedisOptions = {
    lazyConnect: true,
    connectTimeout: settings.connectTimeoutMs,
    // Reject queued commands at the first failed reconnection instead of after 20 of them.
    maxRetriesPerRequest: 0,
    // A command in flight when the connection dropped may have run: report it, never resend it.
    autoResendUnfulfilledCommands: false,
  }
  if (source.sentinel !== undefined) {
    const tls = { primary: settings.tls, sentinels: settings.sentinelTls }
    return new ioredis.Redis({ ...redisOptions, ...sentinelClientOptions(source.sentinel, tls), retryStrategy: reconnect })
  }
  if (settings.tls) redisOptions.tls = settings.tls
  if (source.url !== undefined) return new ioredis.Redis(source.url, { ...redisOptions, retryStrategy: reconnect })
  const cluster = source.cluster!
  const given = Array.isArray(cluster) ? {} : (cluster.options ?? {})
  return new ioredis.Cluster(clusterNodes(cluster), {
    clusterRetryStrategy: reconnect,
    slotsRefreshTimeout: settings.connectTimeoutMs,
    ...given,
    lazyConnect: true,
    redisOptions: { ...redisOptions, ...given.redisOptions },
  })
}

/** The part of the ioredis module botmesh uses. */
interface Ioredis {
  Redis: typeof Redis
  Cluster: typeof Cluster
  Command: typeof Command
}

/** Imports ioredis on first use, so `botmesh/core` never loads it. */
export async function loadIoredis(): Promise<Ioredis> {
  return loadDriver({ packageName: 'ioredis', neededBy: 'botmesh/redis-store', load: () => import('ioredis') })
}
