/** The crash matrix's 'resend' half on RedisDurability (redis-crash-matrix.ts); the 'skip' half is in redis-crash.test.ts. */
import { describe } from 'vitest'
import { redisAvailable } from '../../test-utils/redis.js'
import { describeRedisCrashMatrix } from './redis-crash-matrix.js'

const available = await redisAvailable('the crash matrix on the machine Redis')

describe.runIf(available)('RedisDurability under crashes', () => {
  describeRedisCrashMatrix('resend')
})
