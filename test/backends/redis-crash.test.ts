/**
 * The crash matrix and the real-process SIGKILL test on RedisDurability (the machine's Redis): every
 * case under a key prefix of its own; a "restart" is a new backend with its own connection to the
 * same keys, as the next process would open. The dead generation's connection is closed here.
 */
import { fileURLToPath } from 'node:url'
import { Redis } from 'ioredis'
import { afterAll, describe } from 'vitest'
import { RedisDurability } from '../../src/backends/redis/index.js'
import { describeCrashMatrix } from '../../test-utils/durability-crash.js'
import { describeProcessCrash } from '../../test-utils/process-crash.js'
import { REDIS_URL, deletePrefix, randomPrefix, redisAvailable } from '../../test-utils/redis.js'

const available = await redisAvailable('the crash matrix and the SIGKILL test on the machine Redis')

describe.runIf(available)('RedisDurability under crashes', () => {
  let admin: Redis | undefined
  const cleanPrefix = async (prefix: string) => {
    await deletePrefix((admin ??= new Redis(REDIS_URL)), prefix)
  }
  afterAll(async () => {
    await admin?.quit()
  })

  describeCrashMatrix('RedisDurability', {
    create: async () => new RedisDurability({ url: REDIS_URL, prefix: randomPrefix() }),
    // The crashed generation never stops its bot (its journal calls hang in crashable()), so its connection is closed here.
    restart: async (crashed) => {
      const { prefix, kv } = crashed as RedisDurability
      await kv.stop()
      return new RedisDurability({ url: REDIS_URL, prefix })
    },
    cleanup: async (backend) => {
      await (backend as RedisDurability).kv.stop()
      await cleanPrefix((backend as RedisDurability).prefix)
    },
  })

  describeProcessCrash('RedisDurability', {
    module: fileURLToPath(new URL('../fixtures/process-crash/redis-backend.ts', import.meta.url)),
    prepare() {
      const prefix = randomPrefix()
      return {
        arg: { url: REDIS_URL, prefix },
        open: async () => new RedisDurability({ url: REDIS_URL, prefix }),
        cleanup: () => cleanPrefix(prefix),
      }
    },
  })
})
