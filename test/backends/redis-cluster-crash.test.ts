/**
 * The crash matrix on RedisDurability over a private 3-node Redis Cluster: every crash point before
 * and after under both policies, plus seeded random cases, each under a key prefix of its own (its
 * scope's keys share one slot; scopes spread over the nodes). A "restart" is a new backend with its
 * own Cluster connection to the same keys, as the next process would open.
 *
 * Bounded in time: one cluster for the file, cases one after another (each a fraction of a second
 * to a few seconds), 4 random cases unless CRASH_RANDOM says otherwise.
 */
import { Cluster } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RedisDurability } from '../../src/backends/redis/index.js'
import { describeCrashMatrix } from '../../test-utils/durability-crash.js'
import {
  deletePrefix,
  randomPrefix,
  redisBinariesAvailable,
  scanKeys,
  startRedisCluster,
  type RedisClusterServers,
} from '../../test-utils/redis.js'

const available = await redisBinariesAvailable('the crash matrix on a private 3-node Redis Cluster')

describe.runIf(available)('RedisDurability on a private 3-node Redis Cluster under crashes', () => {
  let cluster: RedisClusterServers
  let admin: Cluster
  const prefixes: string[] = []

  beforeAll(async () => {
    cluster = await startRedisCluster(3)
    admin = new Cluster(cluster.nodes)
  }, 60_000)

  afterAll(async () => {
    await admin?.quit()
    await cluster?.stop()
  })

  const open = (prefix: string) => new RedisDurability({ cluster: cluster.nodes, prefix })

  describeCrashMatrix(
    'RedisDurability({ cluster })',
    {
      create: async () => {
        const prefix = randomPrefix()
        prefixes.push(prefix)
        return open(prefix)
      },
      // The crashed generation never stops its bot (its journal calls hang in crashable()), so its connection is closed here.
      restart: async (crashed) => {
        const { prefix, kv } = crashed as RedisDurability
        await kv.stop()
        return open(prefix)
      },
      cleanup: async (backend) => {
        await (backend as RedisDurability).kv.stop()
        await deletePrefix(admin, (backend as RedisDurability).prefix)
      },
    },
    { random: 4 },
  )

  it('every case removed its keys', async () => {
    expect(prefixes.length).toBeGreaterThan(0)
    for (const prefix of prefixes) expect(await scanKeys(admin, `${prefix}:*`), prefix).toEqual([])
  })
})
