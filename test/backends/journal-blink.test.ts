/**
 * A bot handling a stream of messages while its real server blinks: a private Redis with AOF
 * (`appendfsync always`) SIGKILLed and restarted mid-stream, and PostgreSQL dropping every
 * connection of the bot's pool (`pg_terminate_backend`) mid-stream. Every message must get its reply
 * exactly once: a reply that could not be journaled keeps its message unfinished (replayed), and a
 * send the provider accepted is recorded once the server is back. The channel redelivers a message
 * whose admission was refused, as a webhook does.
 *
 * `BLINK_RUNS` sets the runs per server (default 2); the loop figures in docs/development.md come from
 * `BLINK_RUNS=20 npx vitest run test/backends/journal-blink.test.ts`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PostgresDurability } from '../../src/backends/postgres/index.js'
import { RedisDurability } from '../../src/backends/redis/index.js'
import { Bot } from '../../src/core/bot/bot.js'
import type { DurabilityBackend } from '../../src/core/durability/journal/backend.js'
import { TEXT } from '../../src/core/bot/matchers.js'
import { MockProvider } from '../../src/testing/mock-provider.js'
import { adminQuery, dropTablePrefix, pgUrlWith, postgresAvailable, randomTablePrefix } from '../../test-utils/postgres.js'
import { randomPrefix, redisBinariesAvailable, startRedisServer, type RedisServer } from '../../test-utils/redis.js'
import { waitFor } from '../../test-utils/wait.js'

const RUNS = Number(process.env.BLINK_RUNS ?? 2)
const MESSAGES = 200
const CHATS = 10
const CONCURRENCY = 8
const OPTIONS = {
  pollMs: 50,
  inbox: { leaseMs: '30s', backoff: { baseMs: 20, capMs: 500, jitter: 0 } },
  outbox: { leaseMs: '30s', backoff: { baseMs: 20, capMs: 500, jitter: 0 }, inlineMaxMs: '10s' },
} as const

/** What one run saw. */
interface Tally {
  lost: string[]
  duplicated: string[]
  released: number
}

/**
 * Streams MESSAGES messages over CHATS chats into a bot on `backend`, calls `blink` when half of
 * them were admitted, and waits until every message is done; returns the replies lost or doubled.
 */
async function stream(backend: DurabilityBackend, blink: () => Promise<void>): Promise<Tally> {
  const provider = new MockProvider()
  const errors: unknown[] = []
  const bot = new Bot({
    provider,
    durability: { ...OPTIONS, backend, instanceId: 'blinking' },
    logger: { warn: () => {}, error: () => {} },
  })
  bot.on('error', (error) => errors.push(error))
  bot.when(TEXT, async (ctx) => {
    await ctx.reply(`re:${ctx.message.text}`)
  })
  await bot.start()
  try {
    let next = 0
    let blinking: Promise<void> | undefined
    const sender = async () => {
      while (next < MESSAGES) {
        const n = next++
        // The channel redelivers until the bot acknowledges (a webhook retried on a 5xx).
        await waitFor(
          () =>
            provider.receive({ id: `e${n}`, chatId: `chat-${n % CHATS}`, text: `m${n}` }).then(
              () => true,
              () => false,
            ),
          {
            timeoutMs: 60_000,
            intervalMs: 20,
            message: `message ${n} admitted`,
          },
        )
        if (n === MESSAGES / 2) blinking = blink()
      }
    }
    await Promise.all(Array.from({ length: CONCURRENCY }, sender))
    await blinking
    await waitFor(
      async () => {
        const counts = await backend
          .journal(bot.scope)
          .count('inbox')
          .catch(() => ({}) as Record<string, number>)
        return counts.done === MESSAGES
      },
      { timeoutMs: 90_000, intervalMs: 100, message: `all ${MESSAGES} messages done` },
    )
    await bot.idle(60_000)
    const replies = new Map<string, number>()
    for (const text of provider.texts()) replies.set(text, (replies.get(text) ?? 0) + 1)
    const expected = Array.from({ length: MESSAGES }, (_, n) => `re:m${n}`)
    return {
      lost: expected.filter((text) => !replies.has(text)),
      duplicated: expected.filter((text) => (replies.get(text) ?? 0) > 1),
      released: errors.filter((e) => e instanceof Error && /will be replayed/.test(e.message)).length,
    }
  } finally {
    await bot.stop()
  }
}

function report(server: string, tallies: Tally[]): void {
  const lost = tallies.reduce((sum, t) => sum + t.lost.length, 0)
  const duplicated = tallies.reduce((sum, t) => sum + t.duplicated.length, 0)
  const released = tallies.reduce((sum, t) => sum + t.released, 0)
  console.log(
    `${server} blink: ${tallies.length} runs x ${MESSAGES} messages: lost ${lost}, duplicated ${duplicated}, messages released for a replay ${released}`,
  )
}

const redis = await redisBinariesAvailable('a bot on a private Redis with AOF restarted mid-stream')
describe.runIf(redis)('Redis with AOF (appendfsync always) SIGKILLed and restarted mid-stream', () => {
  let server: RedisServer
  beforeAll(async () => {
    server = await startRedisServer({ flags: ['--appendonly', 'yes', '--appendfsync', 'always'] })
  }, 30_000)
  afterAll(async () => {
    await server?.stop()
  })

  it(`every message gets its reply exactly once (${RUNS} runs)`, async () => {
    const tallies: Tally[] = []
    for (let run = 0; run < RUNS; run++) {
      const backend = new RedisDurability({ url: server.url, prefix: randomPrefix(), connectTimeoutMs: 1_000, commandTimeoutMs: 2_000 })
      tallies.push(
        await stream(backend, async () => {
          await server.kill()
          await new Promise((resolve) => setTimeout(resolve, 200))
          await server.restart()
        }),
      )
    }
    report('Redis', tallies)
    expect(tallies.flatMap((t) => t.lost)).toEqual([])
    expect(tallies.flatMap((t) => t.duplicated)).toEqual([])
  }, 600_000)
})

const postgres = await postgresAvailable()
describe.runIf(postgres)('PostgreSQL dropping the bot’s connections mid-stream (pg_terminate_backend)', () => {
  it(`every message gets its reply exactly once (${RUNS} runs)`, async () => {
    const tallies: Tally[] = []
    for (let run = 0; run < RUNS; run++) {
      const tablePrefix = randomTablePrefix()
      const applicationName = `blink_${tablePrefix}`
      const backend = new PostgresDurability({
        connectionString: pgUrlWith({ application_name: applicationName }),
        tablePrefix,
        poolMax: 4,
        logger: { error: () => {} },
      })
      try {
        tallies.push(
          await stream(backend, async () => {
            // Twice, a moment apart: connections in the middle of a query and idle ones alike.
            for (let n = 0; n < 2; n++) {
              await adminQuery('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [applicationName])
              await new Promise((resolve) => setTimeout(resolve, 50))
            }
          }),
        )
      } finally {
        await dropTablePrefix(tablePrefix)
      }
    }
    report('PostgreSQL', tallies)
    expect(tallies.flatMap((t) => t.lost)).toEqual([])
    expect(tallies.flatMap((t) => t.duplicated)).toEqual([])
  }, 600_000)
})
