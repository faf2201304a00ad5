/**
 * Redis's persistence, checked at start (issue 42): the machine's Redis (`--save "" --appendonly
 * no`) is warned about at each start, naming appendonly and saying a restart loses the journal,
 * and refused under `requirePersistence`; private servers with AOF `everysec` (said once, at info
 * level), `always` (nothing), snapshots only (a warning naming the interval), one that refuses
 * CONFIG (said once that it could not be checked), and a Cluster with one master without AOF.
 */
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RedisDurability, RedisStore, redisOptionsFromUrl } from '../../src/backends/redis/index.js'
import { silencePersistenceWarnings } from '../../src/backends/common/persistence.js'
import { Bot } from '../../src/core/bot/bot.js'
import { recordingLogger, refusal } from '../../test-utils/persistence-findings.js'
import { MockProvider } from '../../src/testing/mock-provider.js'
import {
  REDIS_URL,
  randomPrefix,
  redisAvailable,
  redisBinariesAvailable,
  startRedisCluster,
  startRedisServer,
  type RedisClusterServers,
  type RedisServer,
} from '../../test-utils/redis.js'

// The suite silences the warning about its own Redis (test-utils/quiet-persistence.ts); here it is the subject.
silencePersistenceWarnings(undefined)

const available =
  (await redisAvailable('the persistence check on the machine Redis')) &&
  (await redisBinariesAvailable('the persistence check on private redis-servers'))

/** Starts and stops a backend `times` times. */
async function startStop(backend: { start(): Promise<void>; stop(): Promise<void> }, times: number): Promise<void> {
  for (let n = 0; n < times; n++) {
    await backend.start()
    await backend.stop()
  }
}

describe.runIf(available)('the machine Redis, without persistence', () => {
  it('warns at each start, naming appendonly and saying a restart loses the journal', async () => {
    const { said, logger } = recordingLogger()
    await startStop(new RedisDurability({ url: REDIS_URL, prefix: randomPrefix(), logger }), 2)
    expect(said.warn).toHaveLength(2)
    expect(said.warn[0]).toMatch(/^botmesh: Redis at 127\.0\.0\.1:6379, database 0: appendonly is "no" and save is "":/)
    expect(said.warn[0]).toMatch(/a restart of Redis loses the whole journal/)
    expect(said.warn[0]).toMatch(/appendonly yes.*appendfsync always.*requirePersistence: true/)
    expect(said.info).toEqual([])
  })

  it('warns once per start for a store and its durability sharing the connection, through the RedisStore too', async () => {
    const { said, logger } = recordingLogger()
    const store = new RedisStore({ url: REDIS_URL, prefix: randomPrefix(), logger })
    for (let start = 0; start < 2; start++) {
      await store.start()
      await store.durability().start()
      await store.durability().stop()
      await store.stop()
    }
    expect(said.warn).toHaveLength(2)
    expect(said.warn.every((message) => message.includes('appendonly is "no"'))).toBe(true)
  })

  it('goes to console.warn without a logger', async () => {
    const warned: string[] = []
    const original = console.warn
    console.warn = (message: string) => warned.push(message)
    try {
      await startStop(new RedisDurability({ url: REDIS_URL, prefix: randomPrefix() }), 1)
    } finally {
      console.warn = original
    }
    expect(warned).toHaveLength(1)
    expect(warned[0]).toMatch(/appendonly is "no"/)
  })

  it('refuses to start under requirePersistence (option, backend URL, RedisStore, a bot), leaving no connection open', async () => {
    const durability = new RedisDurability({ url: REDIS_URL, prefix: randomPrefix(), requirePersistence: true })
    const error = await refusal(durability.start())
    expect(error.message).toMatch(
      /appendonly is "no" and save is "".*a restart of Redis loses the whole journal.*, and requirePersistence is set/,
    )
    expect(durability.kv.connection.open).toBe(false)

    const fromUrl = redisOptionsFromUrl(`${REDIS_URL}?prefix=${randomPrefix()}&requirePersistence=true`)
    expect(fromUrl.requirePersistence).toBe(true)
    await refusal(new RedisDurability(fromUrl).start())

    await refusal(new RedisStore({ url: REDIS_URL, prefix: randomPrefix(), requirePersistence: true }).start())
    const bot = new Bot({
      provider: new MockProvider(),
      durability: { backend: new RedisDurability({ url: REDIS_URL, prefix: randomPrefix(), requirePersistence: true }) },
    })
    await expect(bot.start()).rejects.toThrow(/requirePersistence is set/)
  })
})

describe.runIf(available)('private Redis servers with persistence', () => {
  let everysec: RedisServer
  let always: RedisServer
  let snapshots: RedisServer
  let noConfig: RedisServer

  beforeAll(async () => {
    ;[everysec, always, snapshots, noConfig] = await Promise.all([
      startRedisServer({ flags: ['--appendonly', 'yes', '--appendfsync', 'everysec'] }),
      startRedisServer({ flags: ['--appendonly', 'yes', '--appendfsync', 'always'] }),
      startRedisServer({ flags: ['--save', '900 1 60 100'] }),
      startRedisServer({ flags: ['--rename-command', 'CONFIG', ''] }),
    ])
  }, 60_000)

  afterAll(async () => {
    await Promise.all([everysec?.stop(), always?.stop(), snapshots?.stop(), noConfig?.stop()])
  })

  it('AOF with everysec: said once, at info level, that a machine crash can lose the last second; starts under requirePersistence', async () => {
    const { said, logger } = recordingLogger()
    await startStop(new RedisDurability({ url: everysec.url, prefix: randomPrefix(), logger, requirePersistence: true }), 3)
    expect(said.warn).toEqual([])
    expect(said.info).toHaveLength(1)
    expect(said.info[0]).toMatch(/appendfsync is "everysec": a crash of the machine .* can lose the journal writes of the last second/)
  })

  it('AOF with always: nothing said', async () => {
    const { said, logger } = recordingLogger()
    await startStop(new RedisDurability({ url: always.url, prefix: randomPrefix(), logger, requirePersistence: true }), 2)
    expect(said).toEqual({ warn: [], info: [] })
  })

  it('snapshots only: a warning naming the snapshot interval at each start; refused under requirePersistence', async () => {
    const { said, logger } = recordingLogger()
    await startStop(new RedisDurability({ url: snapshots.url, prefix: randomPrefix(), logger }), 2)
    expect(said.warn).toHaveLength(2)
    expect(said.warn[0]).toMatch(/only snapshots are taken \(save "900 1 60 100": one every 60 to 900 s/)
    expect(said.warn[0]).toMatch(/loses every journal write since the last snapshot/)
    const error = await refusal(new RedisDurability({ url: snapshots.url, prefix: randomPrefix(), requirePersistence: true }).start())
    expect(error.message).toMatch(/save "900 1 60 100"/)
  })

  it('a server that refuses CONFIG: said once that it could not be checked', async () => {
    const { said, logger } = recordingLogger()
    const durability = new RedisDurability({ url: noConfig.url, prefix: randomPrefix(), logger })
    await startStop(durability, 3)
    expect(said.warn).toHaveLength(1)
    expect(said.warn[0]).toMatch(
      /could not read maxmemory-policy, appendonly, appendfsync and save on .* \(CONFIG GET is not allowed there\)/,
    )
    expect(said.warn[0]).toMatch(/appendonly yes and appendfsync always/)
  })
})

describe.runIf(available)('a Redis Cluster: every master is read', () => {
  let cluster: RedisClusterServers

  beforeAll(async () => {
    cluster = await startRedisCluster(3)
    // Two masters with AOF always, the third without persistence.
    for (const server of cluster.servers.slice(0, 2)) {
      const admin = new Redis(server.url)
      await admin.config('SET', 'appendonly', 'yes')
      await admin.config('SET', 'appendfsync', 'always')
      await admin.quit()
    }
  }, 120_000)

  afterAll(async () => {
    await cluster?.stop()
  })

  it('warns naming the one master without persistence, and refuses under requirePersistence', async () => {
    const { said, logger } = recordingLogger()
    await startStop(new RedisDurability({ cluster: cluster.nodes, prefix: randomPrefix(), logger }), 1)
    const bare = `127.0.0.1:${cluster.servers[2]!.port}`
    expect(said.warn).toHaveLength(1)
    // Only that master is named where the finding is said.
    expect(said.warn[0]).toContain(`appendonly is "no" and save is "" on ${bare}: nothing is written to disk`)
    await refusal(new RedisDurability({ cluster: cluster.nodes, prefix: randomPrefix(), requirePersistence: true }).start())
  })
})
