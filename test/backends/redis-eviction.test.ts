/**
 * A Redis that may evict keys loses journal records silently, so RedisDurability refuses to start
 * on one (a private redis-server with `maxmemory 2mb` and `maxmemory-policy allkeys-lru`), unless
 * the operator accepted it, which is warned about at each start; a server that hides its policy is
 * warned about once. On a `noeviction` server that fills up, messages fail closed and every
 * admitted one is answered exactly once.
 */
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RedisDurability, RedisStore } from '../../src/backends/redis/index.js'
import { Bot } from '../../src/core/bot/bot.js'
import { ConfigError } from '../../src/core/errors/errors.js'
import { MockProvider } from '../../src/testing/mock-provider.js'
import { TEXT } from '../../src/core/bot/matchers.js'
import {
  REDIS_URL,
  randomPrefix,
  redisAvailable,
  redisBinariesAvailable,
  startRedisServer,
  type RedisServer,
} from '../../test-utils/redis.js'

const available =
  (await redisBinariesAvailable('RedisDurability on an evicting redis-server')) && (await redisAvailable('the machine Redis'))

/** A logger that keeps what it was told. */
function recordingLogger() {
  const warnings: string[] = []
  return { warnings, logger: { warn: (message: string) => warnings.push(message), error: () => {} } }
}

describe.runIf(available)('RedisDurability and the server’s maxmemory-policy', () => {
  let evicting: RedisServer
  let full: RedisServer

  beforeAll(async () => {
    ;[evicting, full] = await Promise.all([
      startRedisServer({ flags: ['--maxmemory', '2mb', '--maxmemory-policy', 'allkeys-lru'] }),
      startRedisServer({ flags: ['--maxmemory', '3mb', '--maxmemory-policy', 'noeviction'] }),
    ])
    // A user that may do everything but CONFIG, as on a managed Redis.
    const admin = new Redis(evicting.url)
    await admin.acl('SETUSER', 'managed', 'on', '>pw', '~*', '&*', '+@all', '-config')
    await admin.quit()
  }, 60_000)

  afterAll(async () => {
    await Promise.all([evicting?.stop(), full?.stop()])
  })

  it('refuses to start on allkeys-lru with a ConfigError naming the policy and noeviction, and leaves no connection open', async () => {
    const durability = new RedisDurability({ url: evicting.url, prefix: randomPrefix() })
    const error = await durability.start().then(
      () => undefined,
      (caught: unknown) => caught,
    )
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as ConfigError).code).toBe('CONFIG_INVALID')
    expect((error as Error).message).toMatch(/maxmemory-policy is "allkeys-lru"/)
    expect((error as Error).message).toMatch(/"noeviction"/)
    expect((error as Error).message).toMatch(/acceptEviction: true/)
    expect(durability.kv.connection.open).toBe(false)

    // A bot on it does not start either.
    const bot = new Bot({
      provider: new MockProvider(),
      durability: { backend: new RedisDurability({ url: evicting.url, prefix: randomPrefix() }) },
    })
    await expect(bot.start()).rejects.toThrow(/allkeys-lru/)
  })

  it('starts with acceptEviction: true, warning at every start', async () => {
    const { warnings, logger } = recordingLogger()
    const durability = new RedisDurability({ url: evicting.url, prefix: randomPrefix(), acceptEviction: true, logger })
    for (let start = 0; start < 2; start++) {
      await durability.start()
      await durability.stop()
    }
    expect(warnings).toHaveLength(2)
    expect(warnings[0]).toMatch(/maxmemory-policy is "allkeys-lru".*not "noeviction".*acceptEviction: true/)

    // The same acceptance through a store's shared connection, and through a CLI URL.
    const store = new RedisStore({ url: evicting.url, prefix: randomPrefix(), acceptEviction: true, logger })
    await store.start()
    await store.durability().start()
    await store.durability().stop()
    await store.stop()
    expect(warnings).toHaveLength(3)
  })

  it('warns once, and starts, where CONFIG GET is not allowed', async () => {
    const { warnings, logger } = recordingLogger()
    const url = evicting.url.replace('redis://', 'redis://managed:pw@')
    const durability = new RedisDurability({ url, prefix: randomPrefix(), logger })
    for (let start = 0; start < 3; start++) {
      await durability.start()
      await durability.stop()
    }
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(
      /could not read maxmemory-policy, appendonly, appendfsync and save.*make sure maxmemory-policy is "noeviction"/,
    )
  })

  it('starts without a word on a noeviction server', async () => {
    const { warnings, logger } = recordingLogger()
    const durability = new RedisDurability({ url: REDIS_URL, prefix: randomPrefix(), logger })
    await durability.start()
    await durability.stop()
    expect(warnings).toEqual([])
  })

  it('on a full noeviction server fails closed: nothing is lost silently and every message is answered once', async () => {
    const provider = new MockProvider()
    const bot = new Bot({
      provider,
      durability: { backend: new RedisDurability({ url: full.url, prefix: randomPrefix() }), instanceId: 'oom', pollMs: 50 },
    })
    const errors: string[] = []
    bot.on('error', (error: { code?: string }) => errors.push(String(error.code)))
    bot.when(TEXT, async (ctx) => {
      await ctx.reply(`answer to ${ctx.message.text!.split(' ')[0]}`)
    })
    await bot.start()
    const MESSAGES = 2_000
    const deliver = (n: number) => provider.receive({ id: `m${n}`, chatId: `c${n % 20}`, text: `${n} ${'x'.repeat(400)}` })
    let refused = 0
    for (let n = 0; n < MESSAGES; n++) await deliver(n).catch(() => refused++)
    // The server filled up: admissions were refused (the channel is told to redeliver), loudly.
    expect(refused).toBeGreaterThan(0)
    expect(errors.length).toBeGreaterThan(0)
    expect(new Set(errors)).toEqual(new Set(['JOURNAL_UNAVAILABLE']))

    // Space returns; the channel redelivers everything, and the operator replays the dead letters
    // (messages admitted whose reply could not be journaled, retried until inbox.maxAttempts).
    const admin = new Redis(full.url)
    await admin.config('SET', 'maxmemory', '0')
    await admin.quit()
    for (let n = 0; n < MESSAGES; n++) await deliver(n)
    const d = bot.durability!
    for (const dead of await d.inbox.list({ state: 'dead', limit: MESSAGES })) await d.replayInbound(dead.id)
    await bot.idle(120_000)
    await bot.stop()

    const answers = provider.texts()
    expect(answers).toHaveLength(MESSAGES)
    expect(new Set(answers).size).toBe(MESSAGES)
  }, 240_000)
})
