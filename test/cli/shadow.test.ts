/**
 * `botmesh shadow`, the built binary: a SQLite journal recorded by one version of a bot, replayed
 * through the same and a changed module. Exit codes (0 same, 1 changed or failed, 2 bad input),
 * the JSON report, the side-by-side view, dead letters, and the file's bytes unchanged.
 */
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { SQLiteStore } from '../../src/backends/sqlite/index.js'
import { Bot } from '../../src/core/bot/bot.js'
import { inboxRecordId } from '../../src/core/durability/outbox/keys.js'
import { TEXT, text } from '../../src/core/index.js'
import { MockProvider } from '../../src/testing/mock-provider.js'
import { botmesh, jsonOf, ROOT, useTempDirs } from './helpers.js'

const tempDir = useTempDirs()
const SCOPE = 'default/default/bot/default'
const CORE = pathToFileURL(join(ROOT, 'dist', 'index.js')).href
const TRAFFIC: [chatId: string, text: string][] = [
  ['c1', 'hello'],
  ['c2', 'menu'],
  ['c1', 'boom'],
  ['c2', 'bye'],
]
const idOf = (n: number) => inboxRecordId('mock', TRAFFIC[n]![0], `m${n}`)

/** The recorded bot, and the change: a second button, and a throw on "boom". */
const MODULES = {
  v1: `import { TEXT, text } from '${CORE}'
export default (bot) => {
  bot.when(text(/^menu$/), (ctx) => ctx.reply({ text: 'Pick one', buttons: [{ id: 'a', title: 'Apples' }] }))
  bot.when(TEXT, (ctx) => ctx.reply('echo: ' + ctx.message.text))
}`,
  v2: `import { TEXT, text } from '${CORE}'
export default (bot) => {
  bot.when(text(/^menu$/), (ctx) => ctx.reply({ text: 'Pick one', buttons: [{ id: 'a', title: 'Apples' }, { id: 'p', title: 'Pears' }] }))
  bot.when(TEXT, (ctx) => {
    if (ctx.message.text === 'boom') throw new Error('boom is not on the menu')
    return ctx.reply('echo: ' + ctx.message.text)
  })
}`,
  none: `export const notDefault = 1`,
}

/** A journal v1 recorded, and the bot modules beside it. */
async function recorded(): Promise<{ dir: string; file: string; url: string }> {
  const dir = tempDir()
  const file = join(dir, 'bot.db')
  const store = new SQLiteStore({ file })
  const provider = new MockProvider()
  const bot = new Bot({ provider, store, durability: { backend: store.durability(), instanceId: 'r1', pollMs: 20 } })
  bot.when(text(/^menu$/), (ctx) => ctx.reply({ text: 'Pick one', buttons: [{ id: 'a', title: 'Apples' }] }))
  bot.when(TEXT, (ctx) => ctx.reply(`echo: ${ctx.message.text}`))
  await bot.start()
  for (const [n, [chatId, body]] of TRAFFIC.entries()) await provider.receive({ id: `m${n}`, chatId, text: body })
  await bot.idle()
  await bot.stop()
  for (const [name, source] of Object.entries(MODULES)) writeFileSync(join(dir, `${name}.mjs`), source)
  return { dir, file, url: `sqlite:${file}` }
}

function bytesOf(file: string): Record<string, string> {
  const files = [file, `${file}-wal`, `${file}-shm`].filter(existsSync)
  return Object.fromEntries(files.map((each) => [each, createHash('sha256').update(readFileSync(each)).digest('hex')]))
}

/** Sets inbound (or outbound) records dead, as the engine leaves them after their last attempt. */
async function kill(file: string, kind: 'inbox' | 'outbox', keys: string[]): Promise<void> {
  const store = new SQLiteStore({ file })
  const backend = store.durability()
  await backend.start()
  const journal = backend.journal(SCOPE)
  for (const entry of await journal.read(kind, keys))
    await journal.write('operator.import', [{ kind, record: { ...entry!.record, state: 'dead' } as never, expectVersion: entry!.version }])
  await backend.stop()
}

type Report = {
  summary: Record<string, number>
  messages: { id: string; outcome: string; recorded: string[]; shadow: string[]; error?: { message: string } }[]
}

describe('botmesh shadow', () => {
  it('exits 0 when the same code answers the same, and leaves the file as it was', async () => {
    const { dir, file, url } = await recorded()
    const before = bytesOf(file)
    const run = await botmesh(['shadow', '--bot', join(dir, 'v1.mjs'), '--backend', url])
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('4 message(s): 4 same, 0 changed, 0 failed')
    expect(bytesOf(file)).toEqual(before)
  })

  it('exits 1 on a changed bot: the JSON report, and the replies side by side in the table', async () => {
    const { dir, file, url } = await recorded()
    const before = bytesOf(file)
    const json = await botmesh(['shadow', '--bot', join(dir, 'v2.mjs'), '--backend', url, '--json'])
    expect(json.code).toBe(1)
    const report = jsonOf<Report>(json)
    expect(report.summary).toEqual({ messages: 4, same: 2, changed: 1, failed: 1 })
    expect(report.messages.map((message) => [message.id, message.outcome])).toEqual([
      [idOf(0), 'same'],
      [idOf(2), 'failed'],
      [idOf(1), 'changed'],
      [idOf(3), 'same'],
    ])
    expect(report.messages[2]).toMatchObject({ recorded: ['Pick one [Apples]'], shadow: ['Pick one [Apples | Pears]'] })
    expect(report.messages[1]!.error).toMatchObject({ message: 'boom is not on the menu' })
    const table = await botmesh(['shadow', '--bot', join(dir, 'v2.mjs'), '--backend', url, '--chat', 'c2'])
    expect(table.code).toBe(1)
    expect(table.stdout).toMatch(/≠1\s+Pick one \[Apples\]\s+Pick one \[Apples \| Pears\]/)
    expect(table.stdout).toContain('2 message(s): 1 same, 1 changed, 0 failed')
    expect(bytesOf(file)).toEqual(before)
  })

  it('exits 2 on bad input: no module, a module without a default export, an unknown state', async () => {
    const { dir, url } = await recorded()
    for (const args of [
      ['shadow', '--backend', url],
      ['shadow', '--bot', join(dir, 'none.mjs'), '--backend', url],
      ['shadow', '--bot', join(dir, 'missing.mjs'), '--backend', url],
      ['shadow', '--bot', join(dir, 'v1.mjs'), '--backend', url, '--state', 'gone'],
      ['shadow', '--bot', join(dir, 'v1.mjs'), '--backend', url, '--sends', 'dead', '--id', idOf(0)],
    ]) {
      const run = await botmesh(args)
      expect({ args, code: run.code }).toEqual({ args, code: 2 })
      expect(run.stdout).toBe('')
    }
  })

  it('--state dead and --sends dead run the dead letters and say which would now succeed', async () => {
    const { dir, file, url } = await recorded()
    await kill(file, 'inbox', [idOf(2), idOf(3)])
    const dead = await botmesh(['shadow', '--bot', join(dir, 'v2.mjs'), '--backend', url, '--state', 'dead'])
    expect(dead.code).toBe(1)
    expect(dead.stdout).toContain('1 of 2 dead-lettered message(s) would now run without an error; 1 would fail again')
    await kill(file, 'outbox', [`${idOf(1)}:1`])
    const sends = jsonOf<Report>(await botmesh(['shadow', '--bot', join(dir, 'v1.mjs'), '--backend', url, '--sends', 'dead', '--json']))
    expect(sends.messages.map((message) => [message.id, message.outcome])).toEqual([[idOf(1), 'same']])
  })

  it('--help has examples', async () => {
    const run = await botmesh(['shadow', '--help'])
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('botmesh shadow --bot ./dist/bot.js --state dead')
  })
})
