/**
 * The steps' conformance cases on Redis (src/backends/redis/steps.ts): on the machine's server and
 * on a private 3-node Cluster (where a step's inbox and outbox are two slots), each case under a
 * fresh prefix. The journal the cases read back through is `RedisDurability`'s own. The backends
 * share the tests' injected client, which needs no start (the cases open their steps synchronously).
 */
import { Cluster, Redis } from 'ioredis'
import { afterAll, beforeAll, describe } from 'vitest'
import { RedisDurability } from '../../src/backends/redis/index.js'
import { describeStepsConformance, type StepsTarget } from '../../test-utils/steps-conformance.js'
import {
  REDIS_URL,
  deletePrefix,
  randomPrefix,
  redisAvailable,
  redisBinariesAvailable,
  startRedisCluster,
  type RedisClusterServers,
} from '../../test-utils/redis.js'

const available = await redisAvailable('the steps on the machine Redis')
const clusterAvailable = await redisBinariesAvailable('the steps on a private 3-node Redis Cluster')

/** A fresh prefix's steps and journal over `client`; the prefixes are remembered for the cleanup. */
function targetOn(client: () => Redis | Cluster, prefixes: string[]): StepsTarget {
  const durability = new RedisDurability({ client: client(), prefix: randomPrefix() })
  prefixes.push(durability.prefix)
  const scope = 'steps'
  return { steps: durability.steps(scope), journal: durability.journal(scope), reopen: () => durability.steps(scope) }
}

describe.runIf(available)('the steps on the machine Redis', () => {
  let client: Redis | undefined
  const prefixes: string[] = []
  const server = () => (client ??= new Redis(REDIS_URL))

  afterAll(async () => {
    for (const prefix of prefixes) await deletePrefix(server(), prefix)
    await client?.quit()
  })

  describeStepsConformance('Redis', () => targetOn(server, prefixes))
})

describe.runIf(clusterAvailable)('the steps on a private 3-node Redis Cluster', () => {
  let cluster: RedisClusterServers | undefined
  let client: Cluster | undefined
  const prefixes: string[] = []

  beforeAll(async () => {
    cluster = await startRedisCluster(3)
    client = new Cluster(cluster.nodes)
  }, 60_000)

  afterAll(async () => {
    if (client) for (const prefix of prefixes) await deletePrefix(client, prefix)
    await client?.quit()
    await cluster?.stop()
  })

  describeStepsConformance('Redis Cluster', () => targetOn(() => client!, prefixes))
})
