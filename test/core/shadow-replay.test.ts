/**
 * shadowReplay: a journal recorded by one version of a bot, replayed through another. The outcomes
 * (same, changed, failed), the selection (chat, states, ids, limit), the journal's bytes unchanged
 * on SQLite and on a file journal, the store unchanged and nothing sent.
 */
import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { FileDurability } from '../../src/backends/file/index.js'
import { SQLiteStore } from '../../src/backends/sqlite/index.js'
import { Bot } from '../../src/core/bot/bot.js'
import type { DurabilityBackend } from '../../src/core/durability/journal/backend.js'
import { inboxRecordId } from '../../src/core/durability/outbox/keys.js'
import { flow, MemoryDurability, MemoryStore, TEXT, text, type Store } from '../../src/core/index.js'
import { MockProvider, shadowReplay, type DefineBot } from '../../src/testing/index.js'
import { useTempDirs } from '../../test-utils/lifecycle.js'

const tempDir = useTempDirs('botmesh-shadow-')
const SCOPE = 'default/default/shop/default'

/** The bot as it ran when the journal was recorded. */
const v1: DefineBot = (bot) => {
  bot.when(
    text(/^signup$/i),
    flow('signup')
      .ask('Your name?')
      .ask('Your email?', (ctx) => ctx.reply('Thanks!'))
      .persistent(),
  )
  bot.when(text(/^menu$/i), (ctx) => ctx.reply({ text: 'Pick one', buttons: [{ id: 'a', title: 'Apples' }] }))
  bot.when(TEXT, async (ctx) => {
    await ctx.reply(`echo: ${ctx.message.text}`)
    await ctx.user.set('last', ctx.message.text ?? null)
  })
}

/** The change: a new menu button, and a handler that throws on "boom". */
const v2: DefineBot = (bot) => {
  bot.when(
    text(/^signup$/i),
    flow('signup')
      .ask('Your name?')
      .ask('Your email?', (ctx) => ctx.reply('Thanks!'))
      .persistent(),
  )
  bot.when(text(/^menu$/i), (ctx) =>
    ctx.reply({
      text: 'Pick one',
      buttons: [
        { id: 'a', title: 'Apples' },
        { id: 'p', title: 'Pears' },
      ],
    }),
  )
  bot.when(TEXT, async (ctx) => {
    if (ctx.message.text === 'boom') throw new Error('boom is not on the menu')
    await ctx.reply(`echo: ${ctx.message.text}`)
  })
}

/** What the recorded bot received, per chat, in order. */
const TRAFFIC: [chatId: string, text: string][] = [
  ['alice', 'hello'],
  ['bob', 'menu'],
  ['alice', 'signup'],
  ['alice', 'Alice'],
  ['bob', 'boom'],
  ['alice', 'alice@example.com'],
  ['bob', 'bye'],
]

const idOf = (n: number) => inboxRecordId('mock', TRAFFIC[n]![0], `m${n}`)

/** Runs v1 on `backend` and `store` through the mock provider, one message at a time. */
async function record(backend: DurabilityBackend, store: Store): Promise<MockProvider> {
  const provider = new MockProvider()
  const bot = new Bot({ provider, store, botId: 'shop', durability: { backend, instanceId: 'shop-1', pollMs: 20 } })
  await v1(bot)
  await bot.start()
  for (const [n, [chatId, body]] of TRAFFIC.entries()) {
    await provider.receive({ id: `m${n}`, chatId, text: body })
    await bot.idle()
  }
  await bot.stop()
  return provider
}

/** sha256 of each file that exists, by name. */
function digests(files: string[]): Record<string, string> {
  return Object.fromEntries(files.filter(existsSync).map((file) => [file, createHash('sha256').update(readFileSync(file)).digest('hex')]))
}

async function sqliteJournal(): Promise<{ file: string; provider: MockProvider }> {
  const file = join(tempDir(), 'bot.db')
  const store = new SQLiteStore({ file })
  return { file, provider: await record(store.durability(), store) }
}

describe('shadowReplay', () => {
  it('reports every message the same when the code did not change, on SQLite, and changes no byte of the file', async () => {
    const { file } = await sqliteJournal()
    const before = digests([file, `${file}-wal`, `${file}-shm`])
    const store = new SQLiteStore({ file })
    const report = await shadowReplay({ backend: store.durability(), store, define: v1 })
    await store.stop()
    expect(report.summary).toEqual({ messages: TRAFFIC.length, same: TRAFFIC.length, changed: 0, failed: 0 })
    expect(report.messages.map((message) => message.id)).toEqual([0, 2, 3, 5, 1, 4, 6].map(idOf))
    expect(report.messages.find((message) => message.id === idOf(1))!.recorded).toEqual(['Pick one [Apples]'])
    expect(digests([file, `${file}-wal`, `${file}-shm`])).toEqual(before)
  })

  it('reports the changed and the failed messages of a changed bot, with their sends and error', async () => {
    const { file } = await sqliteJournal()
    const before = digests([file])
    const store = new SQLiteStore({ file })
    const report = await shadowReplay({ backend: store.durability(), store, define: v2 })
    await store.stop()
    expect(report.summary).toEqual({ messages: 7, same: 5, changed: 1, failed: 1 })
    const byId = new Map(report.messages.map((message) => [message.id, message]))
    expect(byId.get(idOf(1))).toEqual({
      id: idOf(1),
      chatId: 'bob',
      outcome: 'changed',
      recorded: ['Pick one [Apples]'],
      shadow: ['Pick one [Apples | Pears]'],
    })
    expect(byId.get(idOf(4))).toMatchObject({
      outcome: 'failed',
      recorded: ['echo: boom'],
      shadow: [],
      error: { message: 'boom is not on the menu', name: 'Error' },
    })
    expect(digests([file])).toEqual(before)
  })

  it('keeps the new code away from the store and the channel: user data and checkpoints stay as recorded', async () => {
    const backend = new MemoryDurability()
    const store = new MemoryStore()
    const provider = await record(backend, store)
    const sentBefore = provider.sent.length
    const checkpoint = await store.getCheckpoint(SCOPE, 'alice')
    const providers: string[] = []
    const writing: DefineBot = (bot) => {
      providers.push(bot.provider.constructor.name)
      bot.when(TEXT, async (ctx) => {
        await ctx.user.set('last', 'overwritten by the shadow')
        await ctx.reply('x')
      })
    }
    const report = await shadowReplay({ backend, store, define: writing })
    expect(report.summary.changed).toBe(TRAFFIC.length)
    expect(providers).toEqual(['RecordingProvider'])
    expect(provider.sent).toHaveLength(sentBefore)
    expect(await store.getUser(SCOPE, 'bob', 'last')).toBe('bye')
    expect(await store.getCheckpoint(SCOPE, 'alice')).toEqual(checkpoint)
    expect((await backend.journal(SCOPE).count('outbox')).sent).toBe(sentBefore)
  })

  it('reads a file journal opened read-only without changing its bytes', async () => {
    const path = join(tempDir(), 'durable.json')
    const writer = await FileDurability.open(path)
    await record(writer, new MemoryStore())
    await writer.close()
    const before = digests([path, `${path}.log`])
    const reader = await FileDurability.open(path, { readOnly: true })
    const report = await shadowReplay({ backend: reader, define: v2 })
    await reader.close()
    // Without the store the recorded flow's checkpoint is not there: the flow runs from its start, as it did.
    expect(report.summary).toEqual({ messages: 7, same: 5, changed: 1, failed: 1 })
    expect(digests([path, `${path}.log`])).toEqual(before)
  })

  it('selects by chat, ids, limit (the most recent) and since', async () => {
    const backend = new MemoryDurability()
    await record(backend, new MemoryStore())
    const ids = async (options: Partial<Parameters<typeof shadowReplay>[0]>) =>
      (await shadowReplay({ backend, define: v1, ...options })).messages.map((message) => message.id)
    expect(await ids({ chatId: 'bob' })).toEqual([1, 4, 6].map(idOf))
    expect(await ids({ ids: [idOf(6), idOf(1)] })).toEqual([1, 6].map(idOf))
    expect(await ids({ limit: 2 })).toEqual([5, 6].map(idOf))
    expect(await ids({ since: Date.now() + 60_000 })).toEqual([])
    await expect(shadowReplay({ backend, define: v1, ids: ['mock:nobody:x'] })).rejects.toMatchObject({ code: 'RECORD_NOT_FOUND' })
    await expect(shadowReplay({ backend, define: v1, limit: 0 })).rejects.toMatchObject({ code: 'CONFIG_INVALID' })
  })

  it('runs dead-lettered messages with states: dead and says which would now succeed', async () => {
    const backend = new MemoryDurability()
    await record(backend, new MemoryStore())
    const journal = backend.journal(SCOPE)
    const [boom, bye] = await journal.read('inbox', [idOf(4), idOf(6)])
    await journal.write('inbox.dead', [
      { kind: 'inbox', record: { ...boom!.record, state: 'dead' }, expectVersion: boom!.version },
      { kind: 'inbox', record: { ...bye!.record, state: 'dead' }, expectVersion: bye!.version },
    ])
    const report = await shadowReplay({ backend, define: v2, states: ['dead'] })
    expect(report.messages.map((message) => [message.id, message.outcome])).toEqual([
      [idOf(4), 'failed'],
      [idOf(6), 'same'],
    ])
  })
})
