/**
 * `waitReplicas` in a Redis Cluster (replica-wait.ts): each shard's writes wait on that shard. A
 * private Cluster of 3 masters with a replica each (spare ports, their own dirs); two scopes whose
 * journals hash to different masters. With one master's replica frozen (SIGSTOP), a write to that
 * shard fails as JOURNAL_UNAVAILABLE once `waitTimeoutMs` has passed, while a write to the other
 * shard is confirmed by its own replica; after the thaw the first write's retry finds it, safely.
 */
import { Cluster, Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RedisKeys, RedisKv } from '../../src/backends/redis/index.js'
import type { KvPut } from '../../src/core/spi.js'
import {
  randomPrefix,
  redisBinariesAvailable,
  startRedisCluster,
  waitFor,
  confirmed,
  type RedisClusterServers,
} from '../../test-utils/redis.js'

const WAIT_TIMEOUT_MS = 300

const available = await redisBinariesAvailable('waitReplicas on a private Redis Cluster with replicas')

function put(key: string): KvPut {
  return { op: 'put', collection: 'inbox', key, expectVersion: 0, value: { key }, state: 'pending', stateTime: 1_000, due: null }
}

describe.runIf(available)('waitReplicas in a Redis Cluster with a replica per master', () => {
  const prefix = randomPrefix()
  const keys = new RedisKeys(prefix)
  let cluster: RedisClusterServers
  /** One node's connection: the slot map and a key's slot are the same on every node. */
  let admin: Redis
  let client: Cluster

  beforeAll(async () => {
    cluster = await startRedisCluster(3, 1)
    admin = new Redis(cluster.servers[0]!.url)
    client = new Cluster(cluster.nodes)
  }, 120_000)

  afterAll(async () => {
    for (const server of cluster?.servers ?? []) process.kill(server.pid, 'SIGCONT')
    admin?.disconnect()
    client?.disconnect()
    await cluster?.stop()
  })

  /** The port of the master serving `scope`'s inbox, and of that master's replica. */
  async function shardOf(scope: string): Promise<{ master: number; replica: number }> {
    const slot = Number(await admin.cluster('KEYSLOT', keys.collection(scope, 'inbox').entries))
    let shard: { master: number; replica: number } | undefined
    // A replica joins the node's slot map once the cluster's gossip carried it there.
    await waitFor(
      `a replica of slot ${slot} in the slot map`,
      async () => {
        const [, , master, replica] = (await admin.cluster('SLOTS')).find(([from, to]) => slot >= from && slot <= to)!
        shard = master && replica ? { master: master[1], replica: replica[1] } : undefined
        return shard !== undefined
      },
      30_000,
    )
    return shard!
  }

  it("waits on each write's own shard: a frozen replica fails its master's writes only", async () => {
    // Two scopes whose inbox journals hash to different masters.
    const frozenScope = 'scope-0'
    const frozenShard = await shardOf(frozenScope)
    let liveScope = ''
    for (let n = 1; !liveScope; n++) if ((await shardOf(`scope-${n}`)).master !== frozenShard.master) liveScope = `scope-${n}`
    const root = new RedisKv({ client, prefix, waitReplicas: 1, waitTimeoutMs: WAIT_TIMEOUT_MS })
    await root.start()
    const [frozen, live] = [root.scope(frozenScope), root.scope(liveScope)]
    await Promise.all([confirmed(() => frozen.write([put('warm')])), confirmed(() => live.write([put('warm')]))])

    const replica = cluster.servers.find((server) => server.port === frozenShard.replica)!
    process.kill(replica.pid, 'SIGSTOP')
    try {
      await expect(frozen.write([put('in-freeze')])).rejects.toMatchObject({
        code: 'JOURNAL_UNAVAILABLE',
        message: expect.stringMatching(/0 of 1 replica\(s\).*waitReplicas/),
      })
      const [other] = await confirmed(() => live.write([put('in-freeze')]))
      expect(other).toMatchObject({ ok: true })
    } finally {
      process.kill(replica.pid, 'SIGCONT')
    }
    // The unconfirmed write landed on its master: the same compare-and-set again finds it.
    const [retry] = await confirmed(() => frozen.write([put('in-freeze')]))
    expect(retry).toMatchObject({ ok: false, current: { version: 1, value: { key: 'in-freeze' } } })
    await root.stop()
  }, 120_000)
})
