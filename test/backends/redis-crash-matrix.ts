/**
 * The crash matrix on RedisDurability (the machine's Redis) for one policy. redis-crash.test.ts
 * runs the 'skip' half beside the SIGKILL test and redis-crash-resend.test.ts the 'resend' half: on
 * a server's clock each case takes real seconds, so the halves run on two forks at once. Each half
 * has 4 of the 8 random cases. Every case has a key prefix of its own; a "restart" is a new backend
 * with its own connection to the same keys, as the next process would open.
 */
import { Redis } from 'ioredis'
import { afterAll } from 'vitest'
import { RedisDurability } from '../../src/backends/redis/index.js'
import { describeCrashMatrix } from '../../test-utils/durability-crash.js'
import { REDIS_URL, deletePrefix, randomPrefix } from '../../test-utils/redis.js'

/** Inside a describe: the matrix under `policy`. */
export function describeRedisCrashMatrix(policy: 'skip' | 'resend'): void {
  let admin: Redis | undefined
  afterAll(async () => {
    await admin?.quit()
  })

  describeCrashMatrix(
    'RedisDurability',
    {
      create: async () => new RedisDurability({ url: REDIS_URL, prefix: randomPrefix() }),
      // The crashed generation never stops its bot (its journal calls hang in crashable()), so its connection is closed here.
      restart: async (crashed) => {
        const { prefix, kv } = crashed as RedisDurability
        await kv.stop()
        return new RedisDurability({ url: REDIS_URL, prefix })
      },
      cleanup: async (backend) => {
        await (backend as RedisDurability).kv.stop()
        await deletePrefix((admin ??= new Redis(REDIS_URL)), (backend as RedisDurability).prefix)
      },
    },
    { policies: [policy], random: 4 },
  )
}
