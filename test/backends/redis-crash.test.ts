/**
 * The crash matrix ('skip' half: the 'resend' half is redis-crash-resend.test.ts) and the
 * real-process SIGKILL test on RedisDurability (the machine's Redis): every SIGKILL run under a key
 * prefix of its own.
 */
import { fileURLToPath } from 'node:url'
import { Redis } from 'ioredis'
import { afterAll, describe } from 'vitest'
import { RedisDurability } from '../../src/backends/redis/index.js'
import { describeProcessCrash } from '../../test-utils/process-crash.js'
import { REDIS_URL, deletePrefix, randomPrefix, redisAvailable } from '../../test-utils/redis.js'
import { describeRedisCrashMatrix } from './redis-crash-matrix.js'

const available = await redisAvailable('the crash matrix and the SIGKILL test on the machine Redis')

describe.runIf(available)('RedisDurability under crashes', () => {
  let admin: Redis | undefined
  const cleanPrefix = async (prefix: string) => {
    await deletePrefix((admin ??= new Redis(REDIS_URL)), prefix)
  }
  afterAll(async () => {
    await admin?.quit()
  })

  describeRedisCrashMatrix('skip')

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
