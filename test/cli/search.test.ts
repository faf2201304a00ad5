/**
 * `--search` on `inbox list`, `outbox list` and `dlq list`, run as the built binary: on SQLite and
 * on a file journal (Redis and PostgreSQL: server-backend.ts), case-insensitive, over a message's
 * text and a send's content; on an encrypted journal it searches with --keys and, without them,
 * says how many sealed records it could not read.
 */
import { randomBytes } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SQLiteStore } from '../../src/backends/sqlite/index.js'
import { Bot } from '../../src/core/bot/bot.js'
import { TEXT } from '../../src/core/index.js'
import { MockProvider } from '../../src/testing/mock-provider.js'
import { seedJournal } from '../fixtures/cli/seed.js'
import { botmesh, jsonOf, useTempDirs } from './helpers.js'

const tempDir = useTempDirs()
const K1 = randomBytes(32).toString('base64')

type Page = { records: { id: string }[]; unsearched?: number }
const ids = async (url: string, args: string[], extra: string[] = []): Promise<string[]> => {
  const run = await botmesh([...extra, '--backend', url, ...args, '--json'])
  expect(run.code, run.stderr).toBe(0)
  return jsonOf<Page>(run).records.map((record) => record.id)
}

describe.each([
  ['sqlite', (dir: string) => `sqlite:${join(dir, 'bot.db')}`],
  ['file', (dir: string) => `file:${join(dir, 'bot.json')}`],
])('--search on %s', (_name, urlIn) => {
  it('finds records by content in inbox list, outbox list and dlq list, ignoring case', async () => {
    const url = urlIn(tempDir())
    await seedJournal(url)
    expect(await ids(url, ['inbox', 'list', '--search', 'TEXT OF IN-DEAD-2'])).toEqual(['in-dead-2'])
    expect(await ids(url, ['inbox', 'list', '--search', 'text of in-done', '--state', 'done'])).toEqual(['in-done-1', 'in-done-2'])
    expect(await ids(url, ['outbox', 'list', '--search', 'Reply Out-Dead'])).toEqual(['out-dead-1', 'out-dead-2'])
    expect(await ids(url, ['dlq', 'list', '--search', 'dead-1'])).toEqual(['in-dead-1', 'out-dead-1'])
    expect(await ids(url, ['dlq', 'list', '--search', 'chat-'])).toEqual([])
    expect(await ids(url, ['dlq', 'list', '--search', '%'])).toEqual([])
  })

  it('refuses an empty text', async () => {
    const url = urlIn(tempDir())
    await seedJournal(url)
    const run = await botmesh(['--backend', url, 'dlq', 'list', '--search', ' '])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('--search needs a text to look for')
  })
})

describe('--search on an encrypted journal', () => {
  it('searches with --keys; without them it says how many sealed records it could not read', async () => {
    const dir = tempDir()
    const file = join(dir, 'bot.db')
    const store = new SQLiteStore({ file })
    const provider = new MockProvider()
    const encryption = { keys: { k1: K1 }, current: 'k1' }
    const bot = new Bot({ provider, store, botId: 'vault', durability: { backend: store.durability(), instanceId: 'v-1', encryption } })
    bot.when(TEXT, (ctx) => ctx.reply(`echo: ${ctx.message.text}`))
    await bot.start()
    for (const [n, text] of ['Refund for order 7', 'Where is my parcel', 'refund please'].entries())
      await provider.receive({ id: `m${n}`, chatId: 'c1', text })
    await bot.idle()
    await bot.stop()
    const url = `sqlite:${file}`
    const keys = join(dir, 'k1.json')
    writeFileSync(keys, JSON.stringify(encryption), { mode: 0o600 })

    expect(await ids(url, ['inbox', 'list', '--search', 'REFUND'], ['--keys', keys])).toHaveLength(2)
    expect(await ids(url, ['outbox', 'list', '--search', 'echo: where'], ['--keys', keys])).toHaveLength(1)
    const bare = await botmesh(['--backend', url, 'inbox', 'list', '--search', 'refund', '--json'])
    expect(jsonOf<Page>(bare)).toMatchObject({ records: [], unsearched: 3 })
    const human = await botmesh(['--backend', url, 'outbox', 'list', '--search', 'refund'])
    expect(human.code, human.stderr).toBe(0)
    expect(human.stdout).toContain('3 sealed records were not searched: their content is encrypted under a key not given (--keys <file>')
    expect(human.stdout + human.stderr).not.toContain(K1)
  })
})
