/**
 * The journal encrypted at rest, checked on a real backend: a bot with `durability.encryption`
 * handles 100 planted texts (messages, their echoed replies, answers of a persistent flow kept in
 * its checkpoint and user data) and dies while it handles one more (before its reply is journaled); a raw read of the storage
 * (the files, the SQLite database, every Redis value, every PostgreSQL row) then finds none of them
 * and no key, while it does find the records' ids. A restart with a wrong key and one without the
 * key reports ENCRYPTION_KEY_MISSING naming it and leaves the unfinished record alone; a restart
 * with the key (now an older one, beside a new current key) replays it.
 */
import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { Bot } from '../src/core/bot/bot.js'
import type { DurabilityBackend } from '../src/core/durability/journal/backend.js'
import type { EncryptionOptions } from '../src/core/durability/config.js'
import { EncryptionKeyMissingError } from '../src/core/errors/errors.js'
import { flow, TEXT, text } from '../src/core/index.js'
import { inboxRecordId } from '../src/core/durability/outbox/keys.js'
import type { Store } from '../src/core/store/store.js'
import { crashable } from '../src/testing/crashable.js'
import { MockProvider } from '../src/testing/mock-provider.js'
import { waitFor } from './wait.js'

/** One process's view of the storage. */
export interface OpenedStorage {
  backend: DurabilityBackend
  store: Store
}

/** Fresh storage of one backend, opened as successive processes would. */
export interface AtRestStorage {
  /** Opens the storage as a new process would. */
  open(): Promise<OpenedStorage>
  /** Lets go of what a process opened (a crashed one never stops its bot). */
  release(opened: OpenedStorage): Promise<void>
  /** Everything the storage holds, as text: file bytes, row texts, values. */
  rawText(): Promise<string>
  cleanup(): Promise<void>
}

const KEY_1 = randomBytes(32)
const KEY_2 = randomBytes(32)
const PLANTED = 100
const FLOW_CHATS = 10
const TIMEOUT_MS = 60_000

export function describeEncryptionAtRest(name: string, fresh: () => AtRestStorage, available = true): void {
  describe.runIf(available)(`encryption at rest: ${name}`, () => {
    it(
      'a raw read finds none of 100 planted texts; a wrong or missing key is ENCRYPTION_KEY_MISSING; the key replays',
      async () => {
        const storage = fresh()
        try {
          await scenario(storage)
        } finally {
          await storage.cleanup()
        }
      },
      TIMEOUT_MS,
    )
  })
}

async function scenario(storage: AtRestStorage): Promise<void> {
  const planted = Array.from({ length: PLANTED + 1 }, (_, n) => `planted-${randomBytes(6).toString('hex')}-${n}`)
  const unfinished = planted.pop()!
  const logged: string[] = []

  // The first process: every planted text handled, then a crash before one more message completes.
  const first = await storage.open()
  const crashing = crashable(first.backend)
  const a = plantingBot(crashing, first.store, { keys: { k1: KEY_1 }, current: 'k1' }, logged)
  await a.bot.start()
  const answers = planted.slice(0, FLOW_CHATS * 2)
  for (let chat = 0; chat < FLOW_CHATS; chat++) {
    await a.provider.receive({ id: `s${chat}`, chatId: `f${chat}`, text: 'signup' })
    await a.provider.receive({ id: `n${chat}`, chatId: `f${chat}`, text: answers[chat * 2]! })
    await a.provider.receive({ id: `e${chat}`, chatId: `f${chat}`, text: answers[chat * 2 + 1]! })
  }
  for (const [n, body] of planted.slice(FLOW_CHATS * 2).entries())
    await a.provider.receive({ id: `m${n}`, chatId: `c${n % 8}`, text: body })
  await a.bot.idle()
  expect(a.provider.texts().filter((sent) => sent.startsWith('echo: planted-'))).toHaveLength(PLANTED - FLOW_CHATS * 2)
  expect(a.provider.texts().filter((sent) => sent.startsWith('Thanks planted-'))).toHaveLength(FLOW_CHATS)
  crashing.crashBefore('outbox.journal')
  void a.provider.receive({ id: 'u1', chatId: 'u', text: `wait ${unfinished}` }).catch(() => {})
  await crashing.whenCrashed()
  await crashing.quiet()
  await storage.release(first)

  const raw = await storage.rawText()
  expect(raw, 'the raw read reads the journal').toContain(inboxRecordId('mock', 'c0', 'm0'))
  expect(raw, 'content is sealed under k1').toContain('$sealed:2:k1:')
  const found = [...planted, unfinished].filter((body) => raw.includes(body))
  expect(found, 'planted texts found in a raw read').toEqual([])
  for (const encoding of ['base64', 'base64url', 'hex'] as const) expect(raw).not.toContain(KEY_1.toString(encoding))

  // A wrong key under k1, then no k1 at all: reported by id, the unfinished record left as it is.
  const unfinishedId = inboxRecordId('mock', 'u', 'u1')
  for (const [reason, keys] of [
    ['wrong', { keys: { k1: KEY_2 }, current: 'k1' }],
    ['missing', { keys: { k2: KEY_2 }, current: 'k2' }],
  ] as const) {
    const opened = await storage.open()
    const journal = opened.backend.journal(a.bot.durability!.scope)
    await opened.backend.start()
    const before = (await journal.read('inbox', [unfinishedId]))[0]
    const b = plantingBot(opened.backend, opened.store, keys, logged)
    await b.bot.start()
    await waitFor(() => b.errors.some((error) => error instanceof EncryptionKeyMissingError), { timeoutMs: 20_000 })
    await b.bot.idle()
    await b.bot.stop()
    const reported = b.errors.filter((error): error is EncryptionKeyMissingError => error instanceof EncryptionKeyMissingError)
    expect(reported.map((error) => [error.code, error.keyId, error.reason])).toContainEqual(['ENCRYPTION_KEY_MISSING', 'k1', reason])
    expect(reported.map((error) => error.message).join('\n')).toContain(
      `the inbox record "${unfinishedId}" is sealed under encryption key "k1"`,
    )
    expect(b.provider.sent).toEqual([])
    const after = (await journal.read('inbox', [unfinishedId]))[0]
    await opened.backend.stop()
    expect(after?.version, `${reason} key: the unfinished record is not claimed`).toBe(before?.version)
    expect(after?.record.attempts).toBe(1)
    await storage.release(opened)
  }

  // With k1 (an older key now, beside a new current key), the unfinished message is replayed.
  const last = await storage.open()
  const c = plantingBot(last.backend, last.store, { keys: { k1: KEY_1, k2: KEY_2 }, current: 'k2' }, logged)
  await c.bot.start()
  await waitFor(async () => (await c.bot.durability!.inbox.get(unfinishedId))?.state === 'done', { timeoutMs: 20_000 })
  expect(c.provider.texts()).toEqual([`echo: wait ${unfinished}`])
  expect(c.errors).toEqual([])
  await c.bot.stop()
  await storage.release(last)
  const everything = logged.join('\n')
  for (const key of [KEY_1, KEY_2])
    for (const encoding of ['base64', 'hex'] as const) expect(everything).not.toContain(key.toString(encoding))
}

/** A bot that echoes texts and runs a persistent signup flow, collecting its errors and log lines. */
function plantingBot(backend: DurabilityBackend, store: Store, encryption: EncryptionOptions, logged: string[]) {
  const provider = new MockProvider()
  const errors: unknown[] = []
  const bot = new Bot({
    provider,
    store,
    logger: { warn: (m) => logged.push(m), error: (m, e) => logged.push(`${m} ${e instanceof Error ? e.message : String(e ?? '')}`) },
    durability: {
      backend,
      encryption,
      instanceId: 'at-rest-1',
      pollMs: 20,
      inbox: { leaseMs: 500, backoff: { baseMs: 5, capMs: 20, jitter: 0 } },
      outbox: { leaseMs: 500, backoff: { baseMs: 5, capMs: 20, jitter: 0 } },
    },
  })
  bot.on('error', (error: unknown) => {
    errors.push(error)
    logged.push(error instanceof Error ? error.message : String(error))
  })
  bot.when(
    text('signup'),
    flow('signup')
      .ask('Your name?', async (ctx, answer) => {
        await ctx.state.set('name', answer.text!)
        await ctx.user.set('name', answer.text!)
      })
      .ask('Your email?', async (ctx, answer) => {
        await ctx.reply(`Thanks ${String(await ctx.state.get('name'))}, we will write to ${answer.text}`)
      })
      .persistent(),
  )
  bot.when(TEXT, (ctx) => ctx.reply(`echo: ${ctx.message.text}`))
  return { bot, provider, errors }
}
