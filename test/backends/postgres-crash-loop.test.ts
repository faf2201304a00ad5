/**
 * The contract's crash-loop recipe on PostgreSQL, as an operator's test would run it: messages that
 * crash the process on every run (`crashable(backend).crashBefore('outbox.journal')`), a new bot per
 * incarnation with the same instanceId. The first sweep inside `bot.start()` replays them and the
 * first run crashes the process while the sweep's next claim is on its way to the server: the
 * crashed bot's start() must settle (it hung for good before), and after `inbox.maxAttempts` runs
 * each message is dead-lettered.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { PostgresDurability } from '../../src/backends/postgres/index.js'
import { Bot } from '../../src/core/bot/bot.js'
import type { DurabilityBackend } from '../../src/core/durability/journal/backend.js'
import { TEXT } from '../../src/core/bot/matchers.js'
import { MemoryStore } from '../../src/core/store/store.js'
import { crashable, CrashableProvider, MockProvider } from '../../src/testing/index.js'
import { dropTablePrefix, postgresAvailable, randomTablePrefix, testPool } from '../../test-utils/postgres.js'
import { recordId } from '../../test-utils/record-id.js'
import { settles } from '../../test-utils/wait.js'
import { onEngine } from '../../test-utils/engine.js'

const available = await postgresAvailable()
// The crash point is a journal write of the message engine, which the steps engine never makes.
onEngine('message')

const MAX_ATTEMPTS = 3
const CHATS = ['c1', 'c2', 'c3']

/** Whether `outcome` is the crash error a crashed bot's idle() rejects with. */
const crashCode = (outcome: unknown) => (outcome as { code?: unknown } | undefined)?.code === 'BACKEND_CRASHED'

describe.runIf(available)('PostgreSQL: a message that crashes the process on every run', () => {
  const pool = testPool({ max: 4 })
  const tablePrefix = randomTablePrefix()
  afterAll(async () => {
    await pool.end()
    await dropTablePrefix(tablePrefix)
  })

  it('every crashed start() settles, and each message is dead-lettered after inbox.maxAttempts runs', async () => {
    const store = new MemoryStore()
    const incarnation = (backend: DurabilityBackend, provider: MockProvider) => {
      const bot = new Bot({
        provider,
        store,
        logger: { warn: () => {}, error: () => {} },
        durability: {
          backend,
          instanceId: 'i1',
          pollMs: 20,
          inbox: { maxAttempts: MAX_ATTEMPTS, backoff: { baseMs: 5, capMs: 20, jitter: 0 } },
        },
      })
      bot.on('error', () => {})
      bot.when(TEXT, (ctx) => ctx.reply(`never sent: ${ctx.message.text}`))
      return bot
    }
    const starts: string[] = []
    let sent = 0
    // Every incarnation crashes at its first reply, until every message had its runs.
    for (let n = 0; n < CHATS.length * MAX_ATTEMPTS + 1; n++) {
      const a = crashable(new PostgresDurability({ pool, tablePrefix })).crashBefore('outbox.journal')
      const provider = new CrashableProvider(a)
      const bot = incarnation(a, provider)
      await settles(`start() of incarnation ${n}`, bot.start())
      // Whether the crash came inside start() (its first sweep replays the messages).
      starts.push(a.crashed ? 'crashed in start()' : 'started')
      if (n === 0) {
        const received = Promise.all(CHATS.map((chatId) => provider.receive({ id: `m-${chatId}`, chatId, text: 'poison' })))
        await settles('the first messages', Promise.race([received, a.whenCrashed()]))
      }
      const idle = await settles(
        `idle() of incarnation ${n}`,
        bot.idle().then(
          () => 'idle',
          (error: unknown) => error,
        ),
      )
      sent += provider.sent.length
      if (idle === 'idle') {
        await bot.stop()
        break
      }
      expect(crashCode(idle)).toBe(true)
      // The dead process's last writes land before the next one starts.
      await settles(`the writes of incarnation ${n}`, a.quiet())
    }
    console.log(`crash loop on PostgreSQL: ${starts.length} incarnations, each start(): ${JSON.stringify(starts)}`)
    expect(sent).toBe(0)

    // A last bot on the backend finds every message dead-lettered, and answers a new one.
    const provider = new MockProvider()
    const last = incarnation(new PostgresDurability({ pool, tablePrefix }), provider)
    await last.start()
    const dead = await last.durability!.inbox.list({ state: 'dead' })
    expect(dead.map((record) => record.id).sort()).toEqual(CHATS.map((chatId) => recordId(`m-${chatId}`, chatId)))
    await provider.receive({ id: 'fine', chatId: 'c1', text: 'hello' })
    await last.idle()
    expect(provider.sent.map((s) => s.content)).toEqual(['never sent: hello'])
    await last.stop()
  })
})
