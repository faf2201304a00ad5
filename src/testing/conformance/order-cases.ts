/**
 * Conformance cases of a chat's order: one chat's messages are handled, and its sends go out, in
 * the order they arrived, through a crash, a takeover by lease, a message that crashes the process
 * on every run, a failure before the handler, and enqueued sends. Each drives whole bots on the
 * backend, with ids that sort against their arrival order.
 */
import assert from 'node:assert/strict'
import { Bot } from '../../core/bot/bot.js'
import type { DurabilityBackend } from '../../core/durability/journal/backend.js'
import type { DurabilityOptions } from '../../core/durability/config.js'
import { inboxRecordId } from '../../core/durability/outbox/keys.js'
import type { InboxRecord } from '../../core/durability/journal/records.js'
import { TEXT } from '../../core/bot/matchers.js'
import { MemoryStore, type Store } from '../../core/store/store.js'
import { crashable } from '../crashable.js'
import { MockProvider } from '../mock-provider.js'
import type { ConformanceCase } from './case.js'

const CHAT = 'order-chat'
/** Ids in arrival order that sort against it as strings: a tie broken by id is always wrong. */
const IDS = Array.from({ length: 30 }, (_, n) => String(59 - n))
const recordIdOf = (eventId: string) => inboxRecordId('mock', CHAT, eventId)
const silent = { warn: () => {}, error: () => {} }

/** Polls `probe` until it holds; the limit only catches a hang, it never judges speed. */
async function until(what: string, probe: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

interface OrderBot {
  bot: Bot
  provider: MockProvider
}

/** A bot that answers `echo: <text>` in one scope of the backend; `block` holds a handler until it resolves. */
function echoBot(
  backend: DurabilityBackend,
  botId: string,
  instanceId: string,
  options: { block?: (text: string) => Promise<void>; store?: Store; durability?: DurabilityOptions } = {},
): OrderBot {
  const provider = new MockProvider()
  const bot = new Bot({
    provider,
    botId,
    store: options.store ?? new MemoryStore(),
    logger: silent,
    durability: {
      backend,
      instanceId,
      pollMs: 20,
      inbox: { leaseMs: 2_000, maxAttempts: 3, backoff: { baseMs: 5, capMs: 20, jitter: 0 } },
      outbox: { backoff: { baseMs: 5, capMs: 20, jitter: 0 } },
      ...options.durability,
    },
  })
  bot.on('error', () => {})
  bot.when(TEXT, async (ctx) => {
    await options.block?.(ctx.message.text ?? '')
    await ctx.reply(`echo: ${ctx.message.text}`)
  })
  return { bot, provider }
}

const botIdFor = () => `order${Math.floor(Math.random() * 1e9)}`
const echoes = (ids: readonly string[]) => ids.map((id) => `echo: ${id}`)

/** Whether every unfinished one of `ids` is leased to the same run of the bot. */
async function heldByOneRun(backend: DurabilityBackend, scope: string, ids: readonly string[]): Promise<boolean> {
  const found = await backend.journal(scope).read('inbox', ids)
  const runs = new Set(found.flatMap((f) => (f?.record.state === 'processing' ? [f.record.lease?.incarnation] : [])))
  return found.every(Boolean) && runs.size === 1
}

/** A handler that never returns: the process is "killed" while it runs. */
const forever = () => new Promise<void>(() => {})

export const ORDER_CASES: ConformanceCase[] = [
  {
    name: 'order: a burst of one chat, journaled back to back with ids in no string order, replays in arrival order after a crash',
    async run({ backend }) {
      const botId = botIdFor()
      const first = crashable(backend)
      const dead = echoBot(first, botId, 'order-1', { block: forever })
      await dead.bot.start()
      for (const id of IDS) await dead.provider.receive({ id, chatId: CHAT, text: id })
      first.crashNow()
      const next = echoBot(backend, botId, 'order-1')
      await next.bot.start()
      try {
        await until('every message answered', () => next.provider.texts().length >= IDS.length)
        await next.bot.idle()
        assert.deepEqual(next.provider.texts(), echoes(IDS), 'replayed in arrival order')
      } finally {
        await next.bot.stop()
      }
    },
  },
  {
    name: "order: a takeover by lease runs a dead replica's lane head first, never a queued message while its head is still leased",
    async run({ backend }) {
      const botId = botIdFor()
      const first = crashable(backend)
      const leaseMs = 600
      const dead = echoBot(first, botId, 'replica-a', { block: forever, durability: { inbox: { leaseMs } } })
      await dead.bot.start()
      for (const id of ['m1', 'm2', 'm3']) await dead.provider.receive({ id, chatId: CHAT, text: id })
      first.crashNow()
      await first.quiet()
      // The head's last heartbeat landed after the dead replica's others: m2 and m3 run out first.
      const journal = backend.journal(dead.bot.scope)
      const [head] = await journal.read('inbox', [recordIdOf('m1')])
      const later: InboxRecord = { ...head!.record, lease: { ...head!.record.lease!, expiresAt: head!.record.lease!.expiresAt + 1_500 } }
      const [renewed] = await journal.write('inbox.heartbeat', [{ kind: 'inbox', record: later, expectVersion: head!.version }])
      assert.ok(renewed!.ok)
      const survivor = echoBot(backend, botId, 'replica-b', { durability: { inbox: { leaseMs } } })
      await survivor.bot.start()
      try {
        await until('every message answered', () => survivor.provider.texts().length >= 3)
        await survivor.bot.idle()
        assert.deepEqual(survivor.provider.texts(), echoes(['m1', 'm2', 'm3']), 'the head first, then its lane')
      } finally {
        await survivor.bot.stop()
      }
    },
  },
  {
    name: 'order: a message that crashes the process on every run is dead-lettered alone; the messages behind it run once, in order',
    async run({ backend }) {
      const botId = botIdFor()
      const messages = ['boom', 'after 1', 'after 2'].map((text, n) => ({ id: String(9 + n), chatId: CHAT, text }))
      const ids = messages.map((event) => recordIdOf(event.id))
      const answered: string[] = []
      for (let run = 0; run < 6; run++) {
        const process = crashable(backend)
        let delivered = () => {}
        const queued = new Promise<void>((resolve) => (delivered = resolve))
        const incarnation: OrderBot = echoBot(process, botId, 'order-1', {
          // 'boom' kills the process once the channel delivered the messages behind it and this run holds them.
          block: async (text) => {
            if (text !== 'boom') return
            await queued
            await until('the messages behind it held by this run', () => heldByOneRun(backend, incarnation.bot.scope, ids))
            process.crashNow()
            await forever()
          },
        })
        await incarnation.bot.start()
        // The channel delivers all three again on every start, as nothing was acknowledged for good.
        await Promise.all(messages.map((event) => incarnation.provider.receive(event).catch(() => {})))
        delivered()
        const outcome = await Promise.race([
          incarnation.bot.idle().then(() => 'idle' as const),
          process.whenCrashed().then(() => 'crashed' as const),
        ]).catch(() => 'crashed' as const)
        answered.push(...incarnation.provider.texts())
        if (outcome === 'idle') {
          const dead = await incarnation.bot.durability!.inbox.list({ state: 'dead' })
          await incarnation.bot.stop()
          assert.deepEqual(
            dead.map((record) => record.id),
            [recordIdOf('9')],
            'only the message that crashed the process is dead-lettered',
          )
          assert.deepEqual(answered, ['echo: after 1', 'echo: after 2'], 'the chat goes on with its next messages, in order')
          return
        }
        await process.quiet()
      }
      assert.fail(`the poison message was not dead-lettered within its runs; answered ${JSON.stringify(answered)}`)
    },
  },
  {
    name: 'order: a failure before the handler keeps the lane; the chat’s next message waits behind it',
    async run({ backend }) {
      const store = new MemoryStore()
      const read = store.getCheckpoint.bind(store)
      let failures = 1
      store.getCheckpoint = async (scope, chatId) => {
        if (failures-- > 0) throw new Error('the store is down once')
        return read(scope, chatId)
      }
      const { bot, provider } = echoBot(backend, botIdFor(), 'order-1', { store })
      await bot.start()
      try {
        await provider.receive({ id: '9', chatId: CHAT, text: 'one' })
        await provider.receive({ id: '10', chatId: CHAT, text: 'two' })
        await until('both answered', () => provider.texts().length >= 2)
        await bot.idle()
        assert.deepEqual(provider.texts(), ['echo: one', 'echo: two'])
      } finally {
        await bot.stop()
      }
    },
  },
  {
    name: 'order: sends enqueued to one chat go out in the order they were enqueued',
    async run({ backend }) {
      const { bot, provider } = echoBot(backend, botIdFor(), 'order-1')
      await bot.start()
      try {
        for (const id of IDS) await bot.enqueue(CHAT, `step ${id}`, { idempotencyKey: `step:${id}` })
        await until('every send out', () => provider.texts().length >= IDS.length)
        await bot.idle()
        assert.deepEqual(
          provider.texts(),
          IDS.map((id) => `step ${id}`),
        )
      } finally {
        await bot.stop()
      }
    },
  },
]
