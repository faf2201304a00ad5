/** The CLI against the machine's real Redis (skipped loudly when it is missing, failing under CI=true). */
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it } from 'vitest'
import { REDIS_URL, deletePrefix, randomPrefix, redisAvailable, scanKeys } from '../../test-utils/redis.js'
import { botmesh } from './helpers.js'
import { describeServerBackend } from './server-backend.js'

const available = await redisAvailable('the botmesh CLI on the machine Redis')

describe.runIf(available)('botmesh CLI on Redis', () => {
  let admin: Redis | undefined
  const client = () => (admin ??= new Redis(REDIS_URL))
  const prefixes: string[] = []
  const prefixOf = (url: string) => new URL(url).searchParams.get('prefix')!
  afterAll(async () => {
    for (const prefix of prefixes) await deletePrefix(client(), prefix)
    await admin?.quit()
  })
  const server = new URL(REDIS_URL)

  it('a database the server does not have is refused, not silently database 0 (CONFIG_INVALID)', async () => {
    const url = new URL(REDIS_URL)
    url.pathname = '/99'
    const result = await botmesh(['stats', '--backend', url.toString()])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('the server has no database 99')
    expect(result.stderr).toContain('(CONFIG_INVALID)')
  })

  describeServerBackend('redis', {
    url: (prefix = randomPrefix()) => {
      prefixes.push(prefix)
      return `${REDIS_URL}?prefix=${prefix}`
    },
    closedPortUrl: `redis://:hunter2@${server.hostname}:1`,
    urlAtPort: (port) => `redis://127.0.0.1:${port}?prefix=${randomPrefix()}`,
    badCredentialsUrl: `redis://nobody-here:hunter2@${server.host}`,
    env: { BOTMESH_REDIS_URL: REDIS_URL },
    stored: async (url) => (await scanKeys(client(), `${prefixOf(url)}:*`)).sort(),
    throwaways: async (url) => (await scanKeys(client(), `${prefixOf(url)}-throwaway-*`)).sort(),
    prefixOf,
  })
})
