/**
 * A bot on PostgreSQL (PostgresStore + store.durability() on one injected pool): every message is
 * handled and replied to once, and the round trips per handled message (one reply) are counted on
 * the pool and printed, by kind of statement. Nothing here measures time.
 */
import type pg from 'pg'
import { describe, expect, it } from 'vitest'
import { Bot } from '../../src/core/bot/bot.js'
import { TEXT } from '../../src/core/bot/matchers.js'
import { MockProvider } from '../../src/testing/mock-provider.js'
import { PostgresStore } from '../../src/backends/postgres/index.js'
import { dropTablePrefix, postgresAvailable, randomTablePrefix, testPool } from '../../test-utils/postgres.js'
import { useCleanups } from '../../test-utils/lifecycle.js'

const available = await postgresAvailable()

/** What kind of statement a query is, from its text. */
function kindOf(text: string): string {
  if (text.includes(';\n')) return `write batch (${text.split(';\n').length} ops, one transaction)`
  if (text.startsWith('WITH inserted')) return 'journal insert (CAS)'
  if (text.startsWith('WITH updated')) return 'journal update (CAS)'
  if (text.startsWith('WITH deleted')) return 'journal delete (CAS)'
  if (text.includes('key = ANY')) return 'journal get'
  if (text.includes('due IS NOT NULL')) return 'journal due'
  if (text.includes('ORDER BY state_time')) return 'journal list'
  if (text.includes('clock_timestamp')) return 'journal now'
  if (text.includes('sum(entries)')) return 'journal count/scopes'
  if (text.includes('message_log')) return 'store message log'
  if (text.includes('checkpoints')) return 'store checkpoint'
  if (text.includes('users')) return 'store user data'
  return text.slice(0, 40)
}

/** Records the kind of every query made through the pool. */
function recordQueries(pool: pg.Pool): string[] {
  const seen: string[] = []
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown
  ;(pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args) => {
    const [config] = args as [string | { text: string }]
    seen.push(kindOf(typeof config === 'string' ? config : config.text))
    return query(...args)
  }
  return seen
}

function tally(kinds: readonly string[], per: number): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const kind of kinds) counts[kind] = (counts[kind] ?? 0) + 1
  return Object.fromEntries(Object.entries(counts).map(([kind, n]) => [kind, Math.round((n / per) * 100) / 100]))
}

describe.runIf(available)('a bot on PostgreSQL', () => {
  const cleanups = useCleanups()

  it('handles every message once with one reply; round trips per handled message are counted', async () => {
    const tablePrefix = randomTablePrefix()
    cleanups.push(() => dropTablePrefix(tablePrefix))
    const pool = testPool({ max: 8 })
    cleanups.push(() => pool.end())
    const seen = recordQueries(pool)
    const store = new PostgresStore({ pool, tablePrefix })
    const provider = new MockProvider()
    const bot = new Bot({ provider, store, botId: 'pgbot', durability: { backend: store.durability(), instanceId: 'pg-1', pollMs: '1h' } })
    bot.when(TEXT, (ctx) => ctx.reply(`echo: ${ctx.message.text}`))
    await bot.start()
    cleanups.push(() => bot.stop())

    await provider.receive({ id: 'warm', chatId: 'warm', text: 'warm up' })
    await bot.idle()
    seen.length = 0
    await bot.idle()
    const idleQueries = seen.length

    const messages = 20
    seen.length = 0
    for (let n = 0; n < messages; n++) await provider.receive({ id: `m${n}`, chatId: `chat-${n}`, text: `hello ${n}` })
    await bot.idle()
    const perMessage = (seen.length - idleQueries) / messages

    // Different chats are handled concurrently: the replies may go out in any order, each once.
    expect([...provider.texts()].sort()).toEqual(
      ['echo: warm up', ...Array.from({ length: messages }, (_, n) => `echo: hello ${n}`)].sort(),
    )
    const durability = bot.durability!
    expect((await durability.inbox.list({ state: 'done' })).length).toBe(messages + 1)
    expect((await durability.outbox.list({ state: 'sent' })).length).toBe(messages + 1)
    console.log(
      `PostgreSQL round trips per handled message (one reply), over ${messages} messages: ${perMessage.toFixed(2)} ` +
        `(bot.idle() itself: ${idleQueries})\n`,
      tally(seen, messages),
    )
  })
})
