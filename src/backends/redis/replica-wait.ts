/**
 * `waitReplicas`: a journal write counts as done only once that many replicas have it. Redis
 * replicates asynchronously, so without it a failover to a replica loses the writes the replica had
 * not received, acknowledged ones included. Every write path calls `confirm` once after a batch of
 * writes lands (a group commit's script call, a step's): one wait covers the whole batch. The wait
 * goes to the node that took the writes, on the connection that sent them (it counts that
 * connection's writes): `WAITAOF 0 N timeout` where the server has it (Redis 7.2 and later: the
 * replicas have the writes in their AOF on disk), `WAIT N timeout` before (in their memory). Fewer
 * replicas in time: the writes may or may not be on a replica, as after a lost connection, so they
 * fail as JOURNAL_UNAVAILABLE (retryable); their compare-and-sets make the retry safe.
 */
import type { Cluster, Redis } from 'ioredis'
import { ConfigError } from '../../core/errors/errors.js'
import { versionBelow } from '../common/doctor.js'
import { unavailableError, type FailureRole } from '../common/failure-role.js'
import { loadIoredis, type RedisClient } from './client.js'
import { REDIS_LIMITS } from './limits.js'

/** The options that make journal writes wait for replicas. */
export interface ReplicaWaitOptions {
  /**
   * Replicas (of each Cluster master) that must have a journal write before it counts as done: an
   * admission is acknowledged, a send goes out. 0 waits for none. @default 0
   */
  waitReplicas?: number
  /**
   * How long a batch of writes waits for them, in ms, before it fails as JOURNAL_UNAVAILABLE
   * (retryable). Needs `waitReplicas`. @default REDIS_LIMITS.waitTimeoutMs (1000)
   */
  waitTimeoutMs?: number
}

/** The options' names, which a backend URL takes as parameters too (url.ts). */
export const REPLICA_WAIT_PARAMS = ['waitReplicas', 'waitTimeoutMs'] as const

/** The first Redis with WAITAOF, which waits until replicas have a write in their AOF on disk. */
export const WAITAOF_VERSION = '7.2'

/** Whether a server of this `redis_version` has WAITAOF. */
export function hasWaitaof(version: string): boolean {
  return !versionBelow(version, WAITAOF_VERSION)
}

/** Per node: whether it has WAITAOF, read once per connection to it (a failover may change the server). */
const waitaofOf = new WeakMap<Redis, Promise<boolean>>()

/** How journal writes wait for replicas; `of` gives none without `waitReplicas`. */
export class ReplicaWait {
  private constructor(
    /** Replicas that must confirm a batch. */
    readonly replicas: number,
    /** How long they may take, in ms. */
    readonly timeoutMs: number,
  ) {}

  /** The wait the options ask for (undefined for none); refuses invalid values with a `ConfigError`. */
  static of(options: ReplicaWaitOptions): ReplicaWait | undefined {
    const { waitReplicas = 0, waitTimeoutMs } = options
    if (!Number.isSafeInteger(waitReplicas) || waitReplicas < 0)
      throw new ConfigError(`waitReplicas must be a whole number of replicas (0 for none), got ${String(waitReplicas)}`)
    if (waitTimeoutMs !== undefined && (!Number.isSafeInteger(waitTimeoutMs) || waitTimeoutMs <= 0))
      throw new ConfigError(`waitTimeoutMs must be a positive whole number of milliseconds, got ${String(waitTimeoutMs)}`)
    if (waitReplicas === 0) {
      if (waitTimeoutMs !== undefined) throw new ConfigError('waitTimeoutMs is how long writes wait for waitReplicas: set waitReplicas too')
      return undefined
    }
    return new ReplicaWait(waitReplicas, waitTimeoutMs ?? REDIS_LIMITS.waitTimeoutMs)
  }

  /**
   * Resolves once `replicas` replicas have every write the client sent to the node holding `key`;
   * rejects with the role's retryable error when fewer confirm within `timeoutMs`.
   */
  async confirm(client: RedisClient, key: string, what: string, role: FailureRole): Promise<void> {
    const node = await nodeOf(client, key)
    let confirmed: number
    if (await waitaof(node)) {
      const [, replicas] = (await node.call('WAITAOF', 0, this.replicas, this.timeoutMs)) as [number, number]
      confirmed = Number(replicas)
    } else {
      confirmed = Number(await node.wait(this.replicas, this.timeoutMs))
    }
    if (confirmed < this.replicas)
      throw unavailableError(
        role,
        `${confirmed} of ${this.replicas} replica(s) confirmed the ${what} within ${this.timeoutMs} ms (waitReplicas): ` +
          'it may or may not survive a failover, so it is retried',
      )
  }
}

/** The node a key's writes went to: the server itself, or in a Cluster the master of its slot. */
async function nodeOf(client: RedisClient, key: string): Promise<Redis> {
  if (!('isCluster' in client && client.isCluster)) return client as Redis
  const cluster = client as Cluster
  const { Command } = await loadIoredis()
  const address = cluster.slots[new Command('exists', [key]).getSlot()]?.[0]
  const node = cluster.nodes('master').find((master) => `${master.options.host}:${master.options.port}` === address)
  // The slot moved since the write: the wait cannot tell, so the write's outcome is unknown.
  if (!node) throw new Error(`no master is known for the slot of ${key} (the Cluster is resharding or failing over)`)
  return node
}

function waitaof(node: Redis): Promise<boolean> {
  let known = waitaofOf.get(node)
  if (!known) {
    known = node.info('server').then(
      (info) => hasWaitaof(/^redis_version:(\S+)/m.exec(info)?.[1] ?? '0'),
      // A server that refuses INFO (an ACL) still has WAIT.
      () => false,
    )
    waitaofOf.set(node, known)
    node.once('ready', () => waitaofOf.delete(node))
  }
  return known
}
