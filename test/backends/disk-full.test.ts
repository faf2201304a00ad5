/**
 * A full disk, for real: a small tmpfs holds the journal (test-utils/small-filesystem.ts). On the
 * file and SQLite backends a bot whose disk fills up fails closed (admissions refused, messages
 * whose reply could not be journaled retried and then dead-lettered, loudly), and once space
 * returns every one of 600 messages is answered exactly once and the journal verifies clean.
 * `FileDurability.close()` on a full disk rejects naming the journal, and loses nothing.
 */
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FileDurability } from '../../src/backends/file/index.js'
import { verifyJournal } from '../../src/backends/file/verify.js'
import { SQLiteStore } from '../../src/backends/sqlite/index.js'
import { verifySqlite } from '../../src/backends/sqlite/verify.js'
import { Bot } from '../../src/core/bot/bot.js'
import type { DurabilityBackend } from '../../src/core/durability/journal/backend.js'
import { JournalUnavailableError } from '../../src/core/errors/errors.js'
import { TEXT } from '../../src/core/bot/matchers.js'
import { inboxRecord } from '../../src/testing/conformance/fixtures.js'
import { MockProvider } from '../../src/testing/mock-provider.js'
import { smallFilesystem, type SmallFilesystem } from '../../test-utils/small-filesystem.js'

const MESSAGES = 600
const fs = await smallFilesystem('disk-full tests on a small tmpfs', 8 * 1024 * 1024)

/** A backend on the small file system, how to close it after the bot stopped, and whether its journal verifies clean. */
interface Target {
  backend: DurabilityBackend
  close(): Promise<void>
  verify(): Promise<boolean>
}

const TARGETS: { name: string; open(dir: string): Promise<Target> }[] = [
  {
    name: 'FileDurability',
    open: async (dir) => {
      const path = join(dir, 'journal.json')
      const backend = await FileDurability.open(path)
      return { backend, close: () => backend.close(), verify: async () => (await verifyJournal(path)).ok }
    },
  },
  {
    name: 'SQLite',
    open: async (dir) => {
      const file = join(dir, 'bot.db')
      return { backend: new SQLiteStore({ file }).durability(), close: async () => {}, verify: async () => (await verifySqlite(file)).ok }
    },
  },
]

describe.runIf(fs !== undefined)('a full disk under the journal', () => {
  const small = fs as SmallFilesystem
  afterAll(async () => {
    await small.cleanup()
  })

  describe.each(TARGETS)('$name', ({ name, open }) => {
    let dir: string
    beforeAll(async () => {
      dir = join(small.dir, name)
      await mkdir(dir)
    })

    it(`fails closed while full; once space returns, ${MESSAGES} messages are answered once and the journal verifies clean`, async () => {
      const { backend, close, verify } = await open(dir)
      const provider = new MockProvider()
      const backoff = { baseMs: 20, capMs: 100 }
      const bot = new Bot({ provider, durability: { backend, instanceId: 'disk', pollMs: 20, inbox: { backoff }, outbox: { backoff } } })
      const errors: string[] = []
      bot.on('error', (error: { code?: string }) => errors.push(String(error.code)))
      bot.when(TEXT, async (ctx) => {
        await ctx.reply(`answer ${ctx.message.text}`)
      })
      await bot.start()
      await small.fill(96 * 1024)
      const deliver = (n: number) => provider.receive({ id: `m${n}`, chatId: `c${n % 10}`, text: `${n} ${'x'.repeat(200)}` })
      let refused = 0
      try {
        for (let n = 0; n < MESSAGES; n++) await deliver(n).catch(() => refused++)
        // While the disk is full the retries never settle: a moment for them to run, not an idle bot.
        await bot.idle(1_000).catch(() => {})
        expect(refused).toBeGreaterThan(0)
        expect(new Set(errors)).toEqual(new Set(['JOURNAL_UNAVAILABLE']))
      } finally {
        await small.release()
      }

      // Space is back: the channel redelivers everything, the operator replays the dead letters.
      for (let n = 0; n < MESSAGES; n++) await deliver(n)
      const d = bot.durability!
      for (const dead of await d.inbox.list({ state: 'dead', limit: MESSAGES })) await d.replayInbound(dead.id)
      await bot.idle(120_000)
      await bot.stop()
      await close()

      const answers = provider.texts()
      expect(new Set(answers).size).toBe(MESSAGES)
      expect(answers).toHaveLength(MESSAGES)
      expect(await verify()).toBe(true)
    }, 240_000)
  })

  it('FileDurability.close() on a full disk rejects naming the journal, and the next open has every write', async () => {
    const path = join(small.dir, 'close.json')
    const durability = await FileDurability.open(path, { appendLog: true })
    await durability.start()
    const journal = durability.journal('bot')
    for (let n = 0; n < 200; n++) {
      await journal.write('inbox.admit', [
        { kind: 'inbox', record: inboxRecord(`m${n}`, { state: 'done', updatedAt: n }), expectVersion: 0 },
      ])
    }
    await small.fill(0)
    let error: unknown
    try {
      error = await durability.close().then(
        () => undefined,
        (caught: unknown) => caught,
      )
    } finally {
      await small.release()
    }
    expect(error).toBeInstanceOf(JournalUnavailableError)
    expect((error as Error).message).toContain(path)
    expect((error as Error).message).toMatch(/ENOSPC/)
    expect((error as Error).message).toMatch(/still in its log, which the next open replays/)

    const reopened = await FileDurability.open(path, { appendLog: true })
    await reopened.start()
    const read = await reopened.journal('bot').read(
      'inbox',
      Array.from({ length: 200 }, (_, n) => `m${n}`),
    )
    expect(read.filter((entry) => entry === undefined)).toEqual([])
    await reopened.stop()
    await reopened.close()
  })
})
