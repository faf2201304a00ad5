/**
 * Round trips per handled message (one inbound, a handler, one reply) on each shared backend, counted
 * at the driver: every `pool.query` of an injected pg pool, every command an injected ioredis client
 * sends. The journal calls the engine made are counted too (a tap around the backend), so the figure
 * can be read by operation. Journals only (a MemoryStore), and journals plus the backend's own store.
 * The sweeper is parked (pollMs 1h) so the figure is the message path; bot.idle()'s own reads are
 * measured apart and subtracted. Each message alone, and back to back (PostgreSQL's group commit lets
 * concurrent writes share a round trip). Nothing here measures time.
 */
import { Redis } from 'ioredis'
import { describe, expect, it } from 'vitest'
import { PostgresDurability, PostgresStore } from '../../src/backends/postgres/index.js'
import { RedisDurability, RedisStore } from '../../src/backends/redis/index.js'
import { Bot } from '../../src/core/bot/bot.js'
import type { DurabilityBackend } from '../../src/core/durability/journal/backend.js'
import { TEXT } from '../../src/core/bot/matchers.js'
import { MemoryStore, type Store } from '../../src/core/store/store.js'
import { MockProvider } from '../../src/testing/mock-provider.js'
import { countRoundTrips, dropTablePrefix, postgresAvailable, randomTablePrefix, testPool } from '../../test-utils/postgres.js'
import { deletePrefix, randomPrefix, REDIS_URL, redisAvailable } from '../../test-utils/redis.js'
import { TapBackend } from '../core/helpers.js'
import { describeLabel } from '../../src/core/durability/journal/crash-points.js'
import { useCleanups } from '../../test-utils/lifecycle.js'

const [postgres, redis] = await Promise.all([postgresAvailable(), redisAvailable('round trips per handled message on the machine Redis')])

const MESSAGES = 20
/**
 * The most round trips a handled message may cost on the message path: admit, journal the reply,
 * then its sent mark and the inbound's completion in one write (issue 12's target).
 */
const ROUND_TRIPS_PER_MESSAGE_MAX = 3

/** What chat turns add to a message (queue, claim, release, and a read of the turn): coordination's price. */
const COORDINATION_ROUND_TRIPS_MAX = 4

/** What a measured setup gives: the backend, the store, the driver's count, and how to close it all. */
interface Setup {
  backend: DurabilityBackend
  store: Store
  roundTrips(): number
  close(): Promise<void>
}

interface Figure {
  /** Each message alone: received, handled and settled before the next arrives. */
  oneAtATime: number
  /** MESSAGES messages to different chats back to back (concurrent writes may share a round trip). */
  backToBack: number
  idle: number
  journalCalls: Record<string, number>
}

/** Runs messages through a bot, one at a time and then back to back, and counts. */
async function measure(setup: Setup, coordination = false): Promise<Figure> {
  const tap = new TapBackend(setup.backend)
  const provider = new MockProvider()
  const bot = new Bot({
    provider,
    store: setup.store,
    botId: 'round-trips',
    logger: { warn: () => {}, error: () => {} },
    durability: { backend: tap, instanceId: 'rt-1', pollMs: '1h', coordination },
  })
  bot.when(TEXT, (ctx) => ctx.reply(`echo: ${ctx.message.text}`))
  await bot.start()
  try {
    // Warm up: prepared statements, script cache, the scope's first write, the instance heartbeat.
    await provider.receive({ id: 'warm', chatId: 'warm', text: 'warm up' })
    await bot.idle()
    const beforeIdle = setup.roundTrips()
    await bot.idle()
    const idle = setup.roundTrips() - beforeIdle

    let before = setup.roundTrips()
    const calls = snapshot(tap)
    for (let n = 0; n < MESSAGES; n++) {
      await provider.receive({ id: `a${n}`, chatId: `alone-${n}`, text: `alone ${n}` })
      await bot.idle()
    }
    const oneAtATime = (setup.roundTrips() - before - idle * MESSAGES) / MESSAGES
    const journalCalls = difference(snapshot(tap), calls)

    before = setup.roundTrips()
    for (let n = 0; n < MESSAGES; n++) await provider.receive({ id: `b${n}`, chatId: `chat-${n}`, text: `hello ${n}` })
    await bot.idle()
    const backToBack = (setup.roundTrips() - before - idle) / MESSAGES

    const expected = ['echo: warm up', ...Array.from({ length: MESSAGES }, (_, n) => [`echo: alone ${n}`, `echo: hello ${n}`]).flat()]
    expect([...provider.texts()].sort()).toEqual(expected.sort())
    expect((await bot.durability!.inbox.list({ state: 'done', limit: 1_000 })).length).toBe(expected.length)
    expect((await bot.durability!.outbox.list({ state: 'sent', limit: 1_000 })).length).toBe(expected.length)
    const perMessage = Object.entries(journalCalls).flatMap(([name, n]) =>
      name === 'due' ? [] : [[name, Math.round((n / MESSAGES) * 100) / 100]],
    )
    return { oneAtATime, backToBack, idle, journalCalls: Object.fromEntries(perMessage) }
  } finally {
    await bot.stop()
  }
}

/** Journal calls so far: writes by name, other operations by kind (bot.idle()'s due reads included). */
function snapshot(tap: TapBackend): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const write of tap.writes) counts[describeLabel(write.name)] = (counts[describeLabel(write.name)] ?? 0) + 1
  for (const [op, n] of tap.counts) if (op !== 'write') counts[op] = n
  return counts
}

function difference(after: Record<string, number>, before: Record<string, number>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(after).flatMap(([name, n]) => (n - (before[name] ?? 0) > 0 ? [[name, n - (before[name] ?? 0)]] : [])),
  )
}

function report(backend: string, variant: string, figure: Figure): void {
  console.log(
    `${backend} round trips per handled message (one reply), ${variant}: ${figure.oneAtATime.toFixed(2)} one at a time, ` +
      `${figure.backToBack.toFixed(2)} over ${MESSAGES} back to back (bot.idle() itself: ${figure.idle}, subtracted); ` +
      `journal calls per message (one at a time): ${JSON.stringify(figure.journalCalls)}`,
  )
}

describe.runIf(postgres)('round trips per handled message: PostgreSQL (queries on the pool)', () => {
  const cleanups = useCleanups()

  const setup = (withStore: boolean): Setup => {
    const tablePrefix = randomTablePrefix()
    const pool = testPool({ max: 8 })
    const counter = countRoundTrips(pool)
    const store = withStore ? new PostgresStore({ pool, tablePrefix }) : undefined
    const close = async () => {
      await pool.end()
      await dropTablePrefix(tablePrefix)
    }
    cleanups.push(close)
    return {
      backend: store?.durability() ?? new PostgresDurability({ pool, tablePrefix }),
      store: store ?? new MemoryStore(),
      roundTrips: () => counter.queries,
      close,
    }
  }

  it('journals only (MemoryStore)', async () => {
    const figure = await measure(setup(false))
    report('PostgreSQL', 'journals only', figure)
    expect(figure.oneAtATime).toBeLessThanOrEqual(ROUND_TRIPS_PER_MESSAGE_MAX)
  })

  it('journals only, with coordination (chat turns: the extra round trips per message)', async () => {
    const figure = await measure(setup(false), true)
    report('PostgreSQL', 'journals only, coordination', figure)
    expect(figure.oneAtATime).toBeLessThanOrEqual(ROUND_TRIPS_PER_MESSAGE_MAX + COORDINATION_ROUND_TRIPS_MAX)
  })

  it('journals and PostgresStore on one pool', async () => {
    report('PostgreSQL', 'journals + PostgresStore', await measure(setup(true)))
  })
})

describe.runIf(redis)('round trips per handled message: Redis (commands the client sends)', () => {
  const cleanups = useCleanups()

  const setup = (withStore: boolean): Setup => {
    const prefix = randomPrefix()
    const client = new Redis(REDIS_URL)
    let commands = 0
    // Count every command the injected client sends: a wrapper in the test, no flag in the backend.
    const send = client.sendCommand.bind(client)
    client.sendCommand = ((command, stream) => {
      commands++
      return send(command, stream)
    }) as typeof client.sendCommand
    const store = withStore ? new RedisStore({ client, prefix }) : undefined
    const close = async () => {
      await deletePrefix(client, prefix)
      client.disconnect()
    }
    cleanups.push(close)
    return {
      backend: store?.durability() ?? new RedisDurability({ client, prefix }),
      store: store ?? new MemoryStore(),
      roundTrips: () => commands,
      close,
    }
  }

  it('journals only (MemoryStore)', async () => {
    const figure = await measure(setup(false))
    report('Redis', 'journals only', figure)
    expect(figure.oneAtATime).toBeLessThanOrEqual(ROUND_TRIPS_PER_MESSAGE_MAX)
  })

  it('journals only, with coordination (chat turns: the extra round trips per message)', async () => {
    const figure = await measure(setup(false), true)
    report('Redis', 'journals only, coordination', figure)
    expect(figure.oneAtATime).toBeLessThanOrEqual(ROUND_TRIPS_PER_MESSAGE_MAX + COORDINATION_ROUND_TRIPS_MAX)
  })

  it('journals and RedisStore on one client', async () => {
    report('Redis', 'journals + RedisStore', await measure(setup(true)))
  })
})
