import { Redis } from 'ioredis'
import { afterAll, describe, expect, it } from 'vitest'
import { RedisDurability } from '../../src/backends/redis/index.js'
import type { DurabilityBackend } from '../../src/core/durability/journal/backend.js'
import { describeConformance } from '../../test-utils/durability-conformance.js'
import { REDIS_URL, deletePrefix, randomPrefix, redisAvailable } from '../../test-utils/redis.js'

const available = await redisAvailable('RedisDurability on the machine Redis')

describe.runIf(available)('RedisDurability on the machine Redis', () => {
  // The tests' own client: cleanup, and the `client` the second suite injects (never quit by botmesh).
  let admin: Redis | undefined
  const adminClient = () => (admin ??= new Redis(REDIS_URL))
  const cleanup = async (backend: DurabilityBackend) => {
    await deletePrefix(adminClient(), (backend as RedisDurability).prefix)
  }

  afterAll(async () => {
    await admin?.quit()
  })

  describeConformance('RedisDurability({ url })', {
    create: async () => new RedisDurability({ url: REDIS_URL, prefix: randomPrefix() }),
    cleanup,
  })

  describeConformance('RedisDurability({ client })', {
    create: async () => new RedisDurability({ client: adminClient(), prefix: randomPrefix() }),
    cleanup,
  })

  it('leaves an injected client open after its last stop', async () => {
    const durability = new RedisDurability({ client: adminClient(), prefix: randomPrefix() })
    await durability.start()
    await durability.stop()
    expect(adminClient().status).toBe('ready')
    expect(await adminClient().ping()).toBe('PONG')
  })
})
