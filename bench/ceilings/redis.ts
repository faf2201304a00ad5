/**
 * Redis's raw ceiling (`npm run bench`, measure.ts): scripted calls, as botmesh's Redis journal sends
 * its writes as scripts, with the driver botmesh uses. It writes one key under a random name and
 * removes it when it ends.
 */
import { randomBytes } from 'node:crypto'
import { loadDriver } from '../../src/core/platform/driver.js'
import { ceilingFigures, timed, type CeilingFigures, type CeilingRun } from './timed.js'

/** One HSET per call: the smallest scripted write, as botmesh's Redis journal sends its writes as scripts. */
const REDIS_SCRIPT = "redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) return 1"

/** One EVALSHA of an HSET per operation, `clients` callers at once on one connection. */
export async function redisScriptedCalls(url: string, options: CeilingRun, body: string): Promise<CeilingFigures> {
  const { Redis } = await loadDriver({ packageName: 'ioredis', neededBy: 'the Redis ceiling', load: () => import('ioredis') })
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: options.connectTimeoutMs, maxRetriesPerRequest: 1 })
  const key = `botmesh-ceiling-${randomBytes(6).toString('hex')}`
  try {
    await redis.connect()
    const sha = (await redis.script('LOAD', REDIS_SCRIPT)) as string
    const seconds = await timed(options.operations, options.clients, async (n) => {
      await redis.evalsha(sha, 1, key, String(n), body)
    })
    return ceilingFigures('scripted calls (EVALSHA of one HSET) on one connection', 'call', options.operations, options.clients, seconds)
  } finally {
    if (redis.status === 'ready') await redis.del(key).catch(() => {})
    redis.disconnect()
  }
}
