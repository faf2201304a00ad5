/**
 * The journals must never be evicted. A Redis whose `maxmemory-policy` is anything but
 * `noeviction` drops keys under memory pressure without telling anyone: inbox records vanish (a
 * redelivery then runs and replies again), unfinished messages are never replayed, a whole scope
 * can go. With `noeviction` a full server refuses writes instead, which the engine fails closed on.
 *
 * So `start()` reads the policy of every master and refuses any other with a `ConfigError`, unless
 * the operator accepted it (`acceptEviction: true`), which is repeated as a warning at each start.
 * A server that does not let us read it (a managed Redis without `CONFIG`) is warned about once.
 */
import { ConfigError } from '../../core/errors.js'
import type { Cluster, Redis } from 'ioredis'
import type { RedisClient, RedisConnection } from './connection.js'

/** The only policy under which Redis never drops a journal key. */
export const SAFE_EVICTION_POLICY = 'noeviction'

/** What the check needs to know and where it says what it found. */
export interface EvictionCheck {
  /** The operator accepts an evicting server (warned at each start). */
  acceptEviction: boolean
  warn(message: string): void
}

/** Connections whose server would not show its policy, already warned about once. */
const unreadableWarned = new WeakSet<RedisConnection>()

/** Refuses (or, accepted, warns about) a server that may evict keys; see the file's comment. */
export async function checkEvictionPolicy(connection: RedisConnection, check: EvictionCheck): Promise<void> {
  const policies = await connection.run('read maxmemory-policy', 'journal', (client) => readPolicies(client))
  if (policies === undefined) {
    if (unreadableWarned.has(connection)) return
    unreadableWarned.add(connection)
    check.warn(
      `botmesh: could not read maxmemory-policy on ${connection.target} (CONFIG GET is not allowed there); ` +
        `make sure it is "${SAFE_EVICTION_POLICY}", or Redis may evict journal records under memory pressure`,
    )
    return
  }
  const evicting = [...new Set(policies)].filter((policy) => policy !== SAFE_EVICTION_POLICY)
  if (evicting.length === 0) return
  const found = `maxmemory-policy is "${evicting.join('", "')}" on ${connection.target}`
  if (!check.acceptEviction) {
    throw new ConfigError(
      `${found}: Redis may evict journal records under memory pressure, losing messages and replaying sent replies. ` +
        `Set it to "${SAFE_EVICTION_POLICY}" (CONFIG SET maxmemory-policy ${SAFE_EVICTION_POLICY}, and in redis.conf), ` +
        `or pass acceptEviction: true (?acceptEviction=true in a backend URL) to run anyway`,
    )
  }
  check.warn(`botmesh: ${found}, not "${SAFE_EVICTION_POLICY}" (accepted with acceptEviction: true): journal records may be evicted`)
}

/** The policy of each master, or undefined when the server refuses CONFIG GET (an ACL, a renamed command). */
async function readPolicies(client: RedisClient): Promise<string[] | undefined> {
  const nodes: Redis[] = 'isCluster' in client && client.isCluster ? (client as Cluster).nodes('master') : [client as Redis]
  const policies: string[] = []
  for (const node of nodes) {
    let reply: unknown
    try {
      reply = await node.config('GET', 'maxmemory-policy')
    } catch (error) {
      if (error instanceof Error && error.name === 'ReplyError' && /unknown command|NOPERM|no permissions/i.test(error.message))
        return undefined
      throw error
    }
    // A managed server may answer an empty list for a parameter it hides.
    const pair = reply as string[]
    if (!Array.isArray(pair) || pair.length < 2) return undefined
    policies.push(String(pair[1]))
  }
  return policies
}
