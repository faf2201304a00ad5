/** How a Redis connection is named in messages: where it points, never its credentials. */
import type { ClusterNode } from 'ioredis'
import { describeSentinel, type RedisSentinelConfig } from './sentinel.js'

/** The part of the connection options that says where it points. */
interface Where {
  cluster?: ClusterNode[] | { nodes: ClusterNode[] }
  url?: string
  sentinel?: RedisSentinelConfig
}

/** The startup nodes of a `cluster` option, in either of its forms. */
export function clusterNodes(cluster: NonNullable<Where['cluster']>): ClusterNode[] {
  return Array.isArray(cluster) ? cluster : cluster.nodes
}

/** `host:port/db` (or the cluster's nodes), without credentials, for messages. */
export function describeTarget(options: Where): string {
  if (options.cluster !== undefined)
    return `the Redis Cluster at ${clusterNodes(options.cluster)
      .map((node) => (typeof node === 'object' ? `${node.host ?? 'localhost'}:${node.port ?? 6379}` : String(node)))
      .join(',')}`
  if (options.sentinel !== undefined) return describeSentinel(options.sentinel)
  if (options.url === undefined) return 'the given Redis client'
  try {
    const url = new URL(options.url)
    return `Redis at ${url.hostname || 'localhost'}:${url.port || '6379'}, database ${url.pathname.replace(/^\//, '') || '0'}`
  } catch {
    return 'the Redis server'
  }
}
