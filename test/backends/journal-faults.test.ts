/**
 * The promise under faults, on every backend: a journal that fails a write for a moment while a
 * handler runs must neither lose a reply nor send one twice, and inbound ids of two chats must never
 * collide. Each backend is a real throwaway instance (temp files, a random Redis prefix, a random
 * PostgreSQL table prefix) wrapped in a TapBackend that fails the chosen write.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { parseBackendUrl } from '../../src/operator/gateway/backend-url.js'
import { throwawayFactory, type ThrowawayFactory } from '../../src/operator/gateway/throwaway.js'
import { Bot } from '../../src/core/bot/bot.js'
import type { DurabilityBackend } from '../../src/core/durability/journal/backend.js'
import type { DurabilityOptions } from '../../src/core/durability/config.js'
import { writeNames, type WriteName } from '../../src/core/durability/journal/crash-points.js'
import { inboxRecordId } from '../../src/core/durability/outbox/keys.js'
import type { InboxRecord } from '../../src/core/durability/journal/records.js'
import { JournalUnavailableError } from '../../src/core/errors/errors.js'
import { flow } from '../../src/core/bot/flow.js'
import { TEXT, text } from '../../src/core/bot/matchers.js'
import { MemoryStore } from '../../src/core/store/store.js'
import { MockProvider } from '../../src/testing/mock-provider.js'
import { postgresAvailable } from '../../test-utils/postgres.js'
import { redisAvailable } from '../../test-utils/redis.js'
import { waitFor } from '../../test-utils/wait.js'
import { TapBackend, textOf } from '../core/helpers.js'

const servers = { redis: await redisAvailable('journal fault tests'), postgres: await postgresAvailable() }
const BACKENDS = ['memory', 'file', 'sqlite', 'redis', 'postgres', 'events', 'events-shared'].filter(
  (name) => (name !== 'redis' || servers.redis) && (name !== 'postgres' || servers.postgres),
)

/** Leases far longer than any wait here: a fix that leaned on lease expiry would time out. */
const OPTIONS: DurabilityOptions = {
  pollMs: 20,
  inbox: { leaseMs: '60s', backoff: { baseMs: 5, capMs: 20, jitter: 0 } },
  outbox: { leaseMs: '60s', backoff: { baseMs: 5, capMs: 20, jitter: 0 }, inlineMaxMs: '5s' },
}
const WAIT = { timeoutMs: 20_000 }

interface Run {
  bot: Bot
  provider: MockProvider
  tap: TapBackend
  errors: unknown[]
  ambiguous: unknown[]
  /** Fails the next `times` writes named `name` (thrown before they reach the backend). */
  /** Fails the next `times` writes named `name` (or, with `until`, every one until a write named `until` went through). */
  failNext(name: WriteName, times: number, until?: WriteName): void
  inbox(chatId: string, eventId: string): Promise<InboxRecord | undefined>
}

const opened: { factory: ThrowawayFactory; backend: DurabilityBackend; bots: Bot[] }[] = []
afterEach(async () => {
  for (const { factory, backend, bots } of opened.splice(0)) {
    for (const bot of bots) await bot.stop()
    await factory.cleanup(backend)
  }
}, 60_000)

/** One bot (or several replicas, `replicas`) on a fresh throwaway backend, each behind its own tap. */
async function start(
  backendName: string,
  setup: (bot: Bot) => void,
  options: { store?: MemoryStore; replicas?: number; durability?: DurabilityOptions } = {},
): Promise<Run[]> {
  const factory = throwawayFactory(parseBackendUrl(backendName))
  const backend = await factory.create()
  const entry = { factory, backend, bots: [] as Bot[] }
  opened.push(entry)
  const store = options.store ?? new MemoryStore()
  const runs: Run[] = []
  for (let n = 0; n < (options.replicas ?? 1); n++) {
    const tap = new TapBackend(backend)
    const failing = new Map<WriteName, number>()
    const healing = new Map<WriteName, WriteName>()
    tap.intercept((call) => {
      if (call.op !== 'write') return
      for (const [name, until] of healing) if (writeNames(call.name).includes(until)) failing.set(name, 0)
      // A merged write fails when one of its names is scripted to.
      const name = writeNames(call.name).find((one) => (failing.get(one) ?? 0) > 0)
      if (!name) return
      failing.set(name, failing.get(name)! - 1)
      throw new Error(`the journal blinked (scripted) at ${call.name}`)
    })
    const provider = new MockProvider()
    const errors: unknown[] = []
    const ambiguous: unknown[] = []
    const bot = new Bot({
      provider,
      store,
      durability: { ...OPTIONS, ...options.durability, backend: tap, instanceId: `replica-${n}` },
      logger: { warn: () => {}, error: () => {} },
    })
    bot.on('error', (error) => errors.push(error))
    bot.on('durability:ambiguous', (info) => ambiguous.push(info))
    setup(bot)
    await bot.start()
    entry.bots.push(bot)
    runs.push({
      bot,
      provider,
      tap,
      errors,
      ambiguous,
      failNext: (name, times, until) => {
        failing.set(name, times)
        if (until) healing.set(name, until)
      },
      inbox: (chatId, eventId) => bot.durability!.inbox.get(inboxRecordId(provider.name, chatId, eventId)),
    })
  }
  return runs
}

const echoTwice = (bot: Bot) =>
  bot.when(TEXT, async (ctx) => {
    await ctx.reply(`echo: ${ctx.message.text}`)
    await ctx.reply(`bye: ${ctx.message.text}`)
  })

/** Waits until the message is done; resolves to its record. */
const done = (run: Run, chatId: string, eventId: string): Promise<InboxRecord> =>
  waitFor(async () => {
    const record = await run.inbox(chatId, eventId)
    return record?.state === 'done' ? record : undefined
  }, WAIT)

const texts = (provider: MockProvider) => provider.sent.map((s) => textOf(s.content))

describe.each(BACKENDS)('the promise under faults: %s', (backendName) => {
  it('a reply whose outbox.journal write fails is not lost: the inbound runs again, and every reply goes out once, in order', async () => {
    const [run] = await start(backendName, echoTwice)
    run!.failNext('outbox.journal', 1)
    await run!.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    const record = await done(run!, 'c1', 'm1')
    expect(texts(run!.provider)).toEqual(['echo: hi', 'bye: hi'])
    // Charged like a failure before the handler: a second run replayed it.
    expect(record.attempts).toBe(2)
    expect(run!.bot.durability!.metrics().inboundReplayed).toBe(1)
    expect(run!.errors.some((e) => e instanceof JournalUnavailableError)).toBe(true)
  })

  it('a second reply whose journal write fails: the first is answered from the outbox on the replay, the second sent once', async () => {
    const [run] = await start(backendName, echoTwice)
    // The first reply's write lands; the second one's fails.
    let journaled = 0
    run!.tap.intercept((call) => {
      if (call.op === 'write' && call.name === 'outbox.journal' && ++journaled === 2) throw new Error('the journal blinked (scripted)')
    })
    await run!.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await done(run!, 'c1', 'm1')
    expect(texts(run!.provider)).toEqual(['echo: hi', 'bye: hi'])
    expect(run!.bot.durability!.metrics().outboxDeduped).toBeGreaterThanOrEqual(1)
  })

  it('a markSent that fails for a moment after the provider accepted is recorded by a retry: sent, never ambiguous', async () => {
    const [run] = await start(backendName, echoTwice)
    run!.failNext('outbox.markSent', 2)
    await run!.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await done(run!, 'c1', 'm1')
    const key = `${inboxRecordId('mock', 'c1', 'm1')}:1`
    expect((await run!.bot.durability!.outbox.get(key))?.state).toBe('sent')
    expect(texts(run!.provider)).toEqual(['echo: hi', 'bye: hi'])
    expect(run!.ambiguous).toEqual([])
  })

  it('an inbox.complete refused for a moment is retried: done after one run', async () => {
    const [run] = await start(backendName, echoTwice)
    run!.failNext('inbox.complete', 3)
    await run!.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    const record = await done(run!, 'c1', 'm1')
    expect(record.attempts).toBe(1)
    expect(texts(run!.provider)).toEqual(['echo: hi', 'bye: hi'])
  })

  it('an inbox.complete the journal keeps refusing makes the message run again: its replies answered from the outbox', async () => {
    // A settling write keeps trying for half the lease: a 2 s lease keeps that wait short.
    const [run] = await start(backendName, echoTwice, { durability: { inbox: { ...OPTIONS.inbox, leaseMs: '2s' } } })
    // Refused for as long as the settling write keeps trying, until the run is charged again.
    run!.failNext('inbox.complete', Infinity, 'inbox.claim')
    await run!.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    const record = await done(run!, 'c1', 'm1')
    expect(record.attempts).toBe(2)
    expect(texts(run!.provider)).toEqual(['echo: hi', 'bye: hi'])
    expect(run!.bot.durability!.metrics().outboxDeduped).toBe(2)
  })

  it('a message whose reply cannot be journaled keeps the chat’s next message behind it', async () => {
    const [run] = await start(backendName, echoTwice)
    run!.failNext('outbox.journal', 1)
    await run!.provider.receive({ id: 'm1', chatId: 'c1', text: 'first' })
    await run!.provider.receive({ id: 'm2', chatId: 'c1', text: 'second' })
    await done(run!, 'c1', 'm2')
    expect(texts(run!.provider)).toEqual(['echo: first', 'bye: first', 'echo: second', 'bye: second'])
  })

  it('two chats whose messages share an event id are two messages; a redelivery of either is still recognised', async () => {
    const [run] = await start(backendName, echoTwice)
    await run!.provider.receive({ id: '42', chatId: 'alice', text: 'from alice' })
    await run!.provider.receive({ id: '42', chatId: 'bob', text: 'from bob' })
    await run!.provider.receive({ id: '42', chatId: 'alice', text: 'from alice' })
    await run!.bot.idle()
    expect(texts(run!.provider).sort()).toEqual(['bye: from alice', 'bye: from bob', 'echo: from alice', 'echo: from bob'])
    expect((await run!.inbox('alice', '42'))?.id).toBe('mock:alice:42')
    expect((await run!.inbox('bob', '42'))?.state).toBe('done')
    expect(run!.bot.durability!.metrics().inboundDuplicates).toBe(1)
  })

  it('a persistent flow step whose checkpoint write fails is released and replayed: the next message answers the right question', async () => {
    await checkpointFailure(backendName, 1)
  })

  // Replicas need a backend several processes share.
  if (['redis', 'postgres', 'sqlite'].includes(backendName)) {
    it('the same with two replicas sharing the backend and the store', async () => {
      await checkpointFailure(backendName, 2)
    })
  }
})

/** A signup flow whose second checkpoint write fails once; with replicas, the messages go to them in turn. */
async function checkpointFailure(backendName: string, replicas: number): Promise<void> {
  const store = new MemoryStore()
  let failCheckpoints = 0
  const setCheckpoint = store.setCheckpoint.bind(store)
  store.setCheckpoint = async (...args) => {
    if (failCheckpoints > 0) {
      failCheckpoints--
      throw new Error('the store blinked (scripted)')
    }
    return setCheckpoint(...args)
  }
  const signup = (bot: Bot) =>
    bot.when(
      text(/^signup$/),
      flow('signup')
        .ask('Your name?', async (ctx, answer) => {
          await ctx.state.set('name', answer.text ?? '')
        })
        .ask('Your email?', async (ctx, answer) => {
          await ctx.reply(`Thanks ${String(await ctx.state.get('name'))} <${answer.text}>`)
        })
        .persistent(),
    )
  const runs = await start(backendName, signup, { store, replicas })
  const to = (n: number) => runs[n % runs.length]!
  const sent = () => runs.flatMap((run) => texts(run.provider))
  const handled = (n: number, eventId: string) => waitFor(async () => (await to(n).inbox('c1', eventId))?.state === 'done', WAIT)

  await to(0).provider.receive({ id: 's', chatId: 'c1', text: 'signup' })
  await handled(0, 's')
  failCheckpoints = 1
  await to(1).provider.receive({ id: 'n', chatId: 'c1', text: 'Ann' })
  await handled(1, 'n')
  expect(runs.some((run) => run.errors.some((e) => e instanceof JournalUnavailableError))).toBe(true)
  await to(2).provider.receive({ id: 'e', chatId: 'c1', text: 'ann@example.com' })
  await handled(2, 'e')
  expect(sent().sort()).toEqual(['Thanks Ann <ann@example.com>', 'Your email?', 'Your name?'].sort())
}
