/**
 * The server settings a start checks (eviction-policy.ts, persistence-check.ts), read from every
 * master in one round trip each: the four `CONFIG GET`s go as one pipeline (a multi-name
 * `CONFIG GET` needs Redis 7), and the masters of a Cluster are asked at once.
 */
import type { Cluster, Redis } from 'ioredis'
import type { RedisClient } from './client.js'

/** The settings read, by name. */
export const SERVER_SETTING_NAMES = ['maxmemory-policy', 'appendonly', 'appendfsync', 'save'] as const

/** One master's settings, or `undefined` where the server refused `CONFIG GET` (an ACL, a renamed command). */
export interface NodeSettings {
  /** `host:port` of the node. */
  address: string
  settings: Record<(typeof SERVER_SETTING_NAMES)[number], string> | undefined
}

/** The settings of each master (the server itself when it is not a Cluster). */
export async function readServerSettings(client: RedisClient): Promise<NodeSettings[]> {
  const nodes: Redis[] = 'isCluster' in client && client.isCluster ? (client as Cluster).nodes('master') : [client as Redis]
  return Promise.all(nodes.map(async (node) => ({ address: addressOf(node), settings: await readNode(node) })))
}

async function readNode(node: Redis): Promise<NodeSettings['settings']> {
  const pipeline = node.pipeline()
  for (const name of SERVER_SETTING_NAMES) pipeline.config('GET', name)
  const replies = (await pipeline.exec()) ?? []
  const settings: Record<string, string> = {}
  for (const [n, [error, reply]] of replies.entries()) {
    if (error) {
      if (error.name === 'ReplyError' && /unknown command|NOPERM|no permissions/i.test(error.message)) return undefined
      throw error
    }
    // A managed server may answer an empty list for a parameter it hides.
    const pair = reply as string[]
    if (!Array.isArray(pair) || pair.length < 2) return undefined
    settings[SERVER_SETTING_NAMES[n]!] = String(pair[1])
  }
  return settings as NonNullable<NodeSettings['settings']>
}

function addressOf(node: Redis): string {
  return `${node.options.host ?? 'localhost'}:${node.options.port ?? 6379}`
}
