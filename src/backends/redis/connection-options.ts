/**
 * How a Redis connection is given (connection.ts): a client, a URL, a Cluster's nodes or Sentinel's
 * master, with TLS, timeouts, a logger and what the start's checks accept.
 */
import type { ClusterNode, ClusterOptions } from 'ioredis'
import type { StoreTlsOptions } from '../common/tls.js'
import type { RedisClient } from './client.js'
import type { RedisTimeouts } from './limits.js'
import type { ReplicaWaitOptions } from './replica-wait.js'
import type { RedisSentinelConfig } from './sentinel.js'

/** Startup nodes of a Redis Cluster, with ioredis Cluster options. */
export interface RedisClusterConfig {
  /** The nodes the client first connects to; it learns the others from them. */
  nodes: ClusterNode[]
  /** Merged over botmesh's defaults (its timeouts and retry policy); `redisOptions` too. */
  options?: ClusterOptions
}

/** Where botmesh's own client reports connection errors, and the backend its warnings. */
export interface RedisLogger {
  /** Connection errors. @default console.error */
  error(message: string, error?: unknown): void
  /** Warnings (an evicting server accepted, a server without persistence, settings that cannot be read). @default console.warn */
  warn?(message: string): void
  /** What is worth knowing once (AOF with `appendfsync everysec`). @default console.info */
  info?(message: string): void
}

/** How to reach Redis: exactly one of `client`, `url`, `cluster` or `sentinel`; and how many replicas confirm a journal write. */
export interface RedisConnectionOptions extends RedisTimeouts, ReplicaWaitOptions {
  /** Your ioredis client (`Redis` or `Cluster`): used as it is and never closed by botmesh. */
  client?: RedisClient
  /**
   * `redis://[user:password@]host:port[/db]` or `rediss://…` (TLS): botmesh opens its own client on
   * start and closes it on stop. A `rediss://` URL may carry `caFile`, `certFile`, `keyFile` and
   * `servername` parameters, as the `tls` option would. A
   * `redis+sentinel://[user:password@]host:port[,host:port…]/<master name>[/db]` URL (or
   * `rediss+sentinel://`) is read into the `sentinel` option.
   */
  url?: string
  /** A Redis Cluster's startup nodes (or nodes and ioredis Cluster options): botmesh's own Cluster client. */
  cluster?: ClusterNode[] | RedisClusterConfig
  /** The sentinels and the master name: botmesh's own client on the primary they name, following it across failovers. */
  sentinel?: RedisSentinelConfig
  /**
   * TLS settings of botmesh's own client (with a `rediss://` URL, for every node of a `cluster`, or to a `sentinel`'s primary):
   * the CA to trust, a client certificate, the name the server's certificate carries. Files are
   * read on start. @default none: a `rediss://` URL trusts Node's CAs, and `redis://` is clear text
   */
  tls?: StoreTlsOptions
  /** Receives connection errors of botmesh's own client, once per outage. @default none (failed calls reject anyway) */
  logger?: RedisLogger
  /**
   * Start even though the server's `maxmemory-policy` is not `noeviction` (it may evict journal
   * records), with a warning at each start. @default false: such a server is refused
   */
  acceptEviction?: boolean
  /**
   * Refuse to start (`CONFIG_INVALID`) on a server that would lose the journal in a restart or
   * crash (no AOF: no persistence at all, or snapshots only), instead of warning at each start.
   * @default false
   */
  requirePersistence?: boolean
}
