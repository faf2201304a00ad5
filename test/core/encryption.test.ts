/**
 * `durability.encryption` on the in-memory backend: what reaches the backend is sealed (bodies,
 * media references, sends, fingerprints; ids, states, times clear), a bot with the key reads it back,
 * rotation keeps older keys readable, a record whose key is missing or wrong is never run, charged,
 * dead-lettered or purged and is reported with ENCRYPTION_KEY_MISSING naming the key id, and no key
 * ever shows in a message, a log line, an inspected object or the journal.
 */
import { randomBytes } from 'node:crypto'
import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { flow, MemoryDurability, MemoryStore, TEXT } from '../../src/core/index.js'
import type { InboxRecord, OutboxRecord } from '../../src/core/durability/journal/records.js'
import { KeyRing } from '../../src/core/encryption/key-ring.js'
import { RecordSealer } from '../../src/core/encryption/record-sealer.js'
import { SealedStore } from '../../src/core/encryption/sealed-store.js'
import { sealedKeyOf } from '../../src/core/encryption/sealed-text.js'
import { BotmeshError, ConfigError, EncryptionKeyMissingError } from '../../src/core/errors/errors.js'
import { crashable } from '../../src/testing/crashable.js'
import { MockProvider } from '../../src/testing/mock-provider.js'
import { waitFor } from '../../test-utils/wait.js'
import { fast, recordId, useBots } from './helpers.js'

const k1 = randomBytes(32)
const k2 = randomBytes(32)
const ONLY_K1 = { keys: { k1 }, current: 'k1' }
const k1AsBase64 = k1.toString('base64')

/** Everything the backend holds, as one string (what a raw read of a memory journal would see). */
async function rawText(backend: MemoryDurability, scope: string): Promise<string> {
  const journal = backend.journal(scope)
  const found: unknown[] = [
    ...(await journal.due('inbox', Number.MAX_SAFE_INTEGER, 10_000)),
    ...(await journal.due('outbox', Number.MAX_SAFE_INTEGER, 10_000)),
  ]
  for (const kind of ['inbox', 'outbox'] as const)
    for (const state of ['done', 'sent', 'dead', 'unknown']) found.push(...(await journal.list(kind, { state, limit: 10_000 })))
  return JSON.stringify(found)
}

describe('KeyRing', () => {
  it('takes 32-byte keys as Buffers or base64, and refuses anything else without showing it', () => {
    expect(KeyRing.from({ keys: { k1: k1AsBase64, k2 }, current: 'k2' }).ids).toEqual(['k2', 'k1'])
    const cases: [unknown, RegExp][] = [
      [{ keys: { k1: randomBytes(16) }, current: 'k1' }, /keys\.k1 must be 32 bytes \(AES-256\); it has 16/],
      [{ keys: { k1: 'not base64!' }, current: 'k1' }, /keys\.k1 must be 32 bytes as a Buffer or as base64 text; got string/],
      [{ keys: { 'bad id': k1 }, current: 'bad id' }, /the key id "bad id" must be/],
      [{ keys: { k1 }, current: 'k2' }, /current must name one of the keys \(k1\); got "k2"/],
      [{ keys: { k1 }, current: 'k1', rotate: true }, /unknown option "rotate"/],
    ]
    for (const [options, message] of cases) {
      let caught: unknown
      try {
        KeyRing.from(options as never)
      } catch (error) {
        caught = error
      }
      expect(caught).toBeInstanceOf(ConfigError)
      expect((caught as Error).message).toMatch(message)
      expect((caught as Error).message).not.toContain(k1AsBase64)
    }
  })

  it('shows key ids, never a key, when printed, logged or serialized', () => {
    const ring = KeyRing.from({ keys: { k1, k2 }, current: 'k1' })
    for (const shown of [JSON.stringify(ring), inspect(ring), inspect({ ring }, { depth: 5, showHidden: true }), String(ring)]) {
      expect(shown).not.toContain(k1AsBase64)
      expect(shown).not.toContain(k1.toString('hex'))
    }
    expect(JSON.stringify(ring)).toBe('{"current":"k1","keys":["k1","k2"]}')
  })
})

describe('RecordSealer', () => {
  const inbox = (id: string, text: string): InboxRecord => ({
    id,
    kind: 'message',
    state: 'pending',
    chatId: 'c1',
    provider: 'mock',
    event: { id, chatId: 'c1', text, media: { url: 'https://cdn.example/secret.jpg' } },
    attempts: 0,
    nextAttemptAt: null,
    lease: null,
    fencingToken: 0,
    lastError: null,
    createdAt: 1,
    updatedAt: 1,
  })

  it('seals the content and keeps ids, states and times clear; the same key opens it', () => {
    const sealer = new RecordSealer(KeyRing.from(ONLY_K1))
    const record = inbox('mock:c1:m1', 'my card is 4111 1111 1111 1111')
    const sealed = sealer.seal('s1', 'inbox', record)
    expect(sealedKeyOf(sealed.event)).toBe('k1')
    // With a space: the sealed form (hex check, base64url) can hold '4111' by chance, never this.
    expect(JSON.stringify(sealed)).not.toContain('4111 1111')
    expect(JSON.stringify(sealed)).not.toContain('secret.jpg')
    expect({ ...sealed, event: null }).toEqual({ ...record, event: null })
    expect(new RecordSealer(KeyRing.from(ONLY_K1)).open('s1', 'inbox', sealed)).toEqual({ record })
  })

  it('tells a missing key, a wrong key under the same id and a value moved to another record apart', () => {
    const sealed = new RecordSealer(KeyRing.from(ONLY_K1)).seal('s1', 'inbox', inbox('mock:c1:m1', 'hello')) as InboxRecord
    const opened = (ring: KeyRing, record: InboxRecord) =>
      new RecordSealer(ring).open('s1', 'inbox', record).unreadable as EncryptionKeyMissingError
    const missing = opened(KeyRing.from({ keys: { k2 }, current: 'k2' }), sealed)
    const wrong = opened(KeyRing.from({ keys: { k1: k2 }, current: 'k1' }), sealed)
    const moved = opened(KeyRing.from(ONLY_K1), { ...inbox('mock:c1:m2', 'x'), event: sealed.event })
    expect([missing?.reason, wrong?.reason, moved?.reason]).toEqual(['missing', 'wrong', 'altered'])
    // A key you configure cures the first two; nothing but a backup cures the third (ENCRYPTION_ALTERED).
    expect([missing?.code, wrong?.code, moved?.code]).toEqual(['ENCRYPTION_KEY_MISSING', 'ENCRYPTION_KEY_MISSING', 'ENCRYPTION_ALTERED'])
    for (const error of [missing, wrong, moved]) {
      expect(error).toBeInstanceOf(EncryptionKeyMissingError)
      expect(error!.keyId).toBe('k1')
      expect(error!.message).toContain('encryption key "k1"')
    }
    expect(missing!.message).toContain('the inbox record "mock:c1:m1"')
  })
})

describe('a bot with durability.encryption', () => {
  const bots = useBots()
  const echo = (bot: import('../../src/core/bot/bot.js').Bot) => bot.when(TEXT, (ctx) => ctx.reply(`echo: ${ctx.message.text}`))

  it('hands the backend only sealed content, and works as without it', async () => {
    const memory = new MemoryDurability()
    const t = await bots.start({ durability: fast({ backend: memory, instanceId: 'i1', encryption: ONLY_K1 }), setup: echo })
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'planted-secret-1' })
    await t.bot.idle()
    expect(t.provider.texts()).toEqual(['echo: planted-secret-1'])
    const written = t.tap!.writes.flatMap((w) => w.writes.flatMap((write) => ('record' in write ? [write.record] : [])))
    expect(written.length).toBeGreaterThan(2)
    expect(JSON.stringify(written)).not.toContain('planted-secret-1')
    const outbox = t.tap!.written<OutboxRecord>('outbox.journal')[0]!
    expect([sealedKeyOf(outbox.payload), sealedKeyOf(outbox.fingerprint)]).toEqual(['k1', 'k1'])
    expect(await rawText(memory, t.bot.durability!.scope)).not.toContain('planted-secret-1')
    // The bot's own view is clear.
    const [record] = await t.bot.durability!.inbox.list({ state: 'done' })
    expect((record!.event as { text: string }).text).toBe('planted-secret-1')
    expect(t.errors).toEqual([])
  })

  it('recognises a redelivery and answers a replay from the outbox, sealed as it is', async () => {
    const memory = new MemoryDurability()
    const shared = crashable(memory)
    const a = await bots.start({
      durability: fast({ backend: shared, instanceId: 'i1', encryption: ONLY_K1 }),
      untapped: true,
      setup: echo,
    })
    shared.crashAfter('outbox.markSent')
    void a.provider.receive({ id: 'm1', chatId: 'c1', text: 'once only' }).catch(() => {})
    await shared.whenCrashed()
    bots.abandon(a)
    await shared.quiet()
    const b = await bots.start({
      durability: fast({ backend: memory, instanceId: 'i1', encryption: ONLY_K1 }),
      provider: new MockProvider(),
      setup: echo,
    })
    await waitFor(async () => (await b.bot.durability!.inbox.list({ state: 'done' })).length === 1)
    await b.provider.receive({ id: 'm1', chatId: 'c1', text: 'once only' })
    await b.bot.idle()
    expect(a.provider.texts()).toEqual(['echo: once only'])
    expect(b.provider.texts()).toEqual([])
    expect(b.bot.durability!.metrics().outboxDeduped + b.bot.durability!.metrics().inboundDuplicates).toBeGreaterThan(0)
  })

  it('reads records of an older key while it is configured (rotation) and seals new ones under the current key', async () => {
    const memory = new MemoryDurability()
    const a = await bots.start({ durability: fast({ backend: memory, instanceId: 'i1', encryption: ONLY_K1 }), setup: echo })
    await a.provider.receive({ id: 'm1', chatId: 'c1', text: 'under k1' })
    await a.bot.idle()
    await a.bot.stop()
    const b = await bots.start({
      durability: fast({ backend: memory, instanceId: 'i1', encryption: { keys: { k1, k2 }, current: 'k2' } }),
      setup: echo,
    })
    await b.provider.receive({ id: 'm1', chatId: 'c1', text: 'under k1' })
    await b.provider.receive({ id: 'm2', chatId: 'c1', text: 'under k2' })
    await b.bot.idle()
    expect(b.provider.texts()).toEqual(['echo: under k2'])
    const raw = memory.journal(b.bot.durability!.scope)
    const [m1, m2] = await raw.read('inbox', [recordId('m1'), recordId('m2')])
    expect([sealedKeyOf(m1!.record.event), sealedKeyOf(m2!.record.event)]).toEqual(['k1', 'k2'])
    expect(b.errors).toEqual([])
  })

  it('never runs, charges, dead-letters or purges a record whose key is missing or wrong, and says which key it needs', async () => {
    const memory = new MemoryDurability()
    const shared = crashable(memory)
    const setup = echo
    const a = await bots.start({ durability: fast({ backend: shared, instanceId: 'i1', encryption: ONLY_K1 }), untapped: true, setup })
    await a.provider.receive({ id: 'm0', chatId: 'c1', text: 'settled under k1' })
    await a.bot.idle()
    shared.crashBefore('inbox.complete')
    void a.provider.receive({ id: 'm1', chatId: 'c1', text: 'left unfinished' }).catch(() => {})
    await shared.whenCrashed()
    bots.abandon(a)
    await shared.quiet()
    const raw = memory.journal(a.bot.durability!.scope)
    const before = (await raw.read('inbox', [recordId('m1')]))[0]!

    for (const [name, keys] of [
      ['missing', { keys: { k2 }, current: 'k2' }],
      ['wrong', { keys: { k1: k2 }, current: 'k1' }],
    ] as const) {
      // Retention of 1 ms: every settled record is old enough to be purged at each sweep.
      const b = await bots.start({
        durability: fast({ backend: memory, instanceId: 'i1', encryption: keys, retention: 1, inbox: { maxAttempts: 1 } }),
        provider: new MockProvider(),
        setup,
      })
      await waitFor(() => b.errors.filter((e) => e instanceof EncryptionKeyMissingError).length >= 2, {
        message: `${name}: both records reported`,
      })
      await b.bot.idle()
      const errors = b.errors.filter((e): e is EncryptionKeyMissingError => e instanceof EncryptionKeyMissingError)
      expect(errors.every((e) => e.code === 'ENCRYPTION_KEY_MISSING' && e.keyId === 'k1' && e.reason === name)).toBe(true)
      expect(errors.map((e) => e.message).join('\n')).toContain(`the inbox record "${recordId('m1')}" is sealed under encryption key "k1"`)
      // Neither run nor charged, not dead-lettered, not purged.
      expect(b.provider.sent).toEqual([])
      expect((await raw.read('inbox', [recordId('m1')]))[0]).toEqual(before)
      expect(await raw.count('inbox')).toEqual({ done: 1, processing: 1 })
      expect(b.dead).toEqual([])
      await b.bot.stop()
    }

    // With the key, the unfinished message is replayed (its reply went out before the crash: never twice).
    const c = await bots.start({
      durability: fast({ backend: memory, instanceId: 'i1', encryption: { keys: { k1, k2 }, current: 'k2' } }),
      setup,
    })
    await waitFor(async () => (await raw.read('inbox', [recordId('m1')]))[0]!.record.state === 'done')
    expect([...a.provider.texts(), ...c.provider.texts()]).toEqual(['echo: settled under k1', 'echo: left unfinished'])
    expect(c.errors).toEqual([])
  })

  it('seals the message log, checkpoints and user data of a botmesh store, and leaves a store of yours alone', async () => {
    const inner = Object.assign(new MemoryStore(), { sealable: true })
    const t = await bots.start({
      store: inner,
      durability: fast({ instanceId: 'i1', encryption: ONLY_K1 }),
      setup: (bot) =>
        bot.when(
          TEXT,
          flow('signup')
            .ask('Your name?', async (ctx, answer) => {
              await ctx.state.set('name', answer.text!)
              await ctx.user.set('name', answer.text!)
            })
            .ask('Your email?', (ctx) => ctx.reply('thanks'))
            .persistent(),
        ),
    })
    expect(t.bot.store).toBeInstanceOf(SealedStore)
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await t.provider.receive({ id: 'm2', chatId: 'c1', text: 'Ada Lovelace' })
    await t.bot.idle()
    const scope = t.bot.durability!.scope
    const rawCheckpoint = await inner.getCheckpoint(scope, 'c1')
    expect(sealedKeyOf(rawCheckpoint)).toBe('k1')
    expect(sealedKeyOf(await inner.getUser(scope, 'c1', 'name'))).toBe('k1')
    const log = await inner.listLog(scope, 'c1', 10)
    expect(log.map((entry) => sealedKeyOf(entry.text))).toEqual(log.map(() => 'k1'))
    expect(JSON.stringify([rawCheckpoint, log])).not.toContain('Ada Lovelace')
    expect(await t.bot.store.getUser(scope, 'c1', 'name')).toBe('Ada Lovelace')
    expect((await t.bot.store.listLog(scope, 'c1', 10)).map((entry) => entry.text)).toContain('Ada Lovelace')

    const mine = new MemoryStore()
    const u = await bots.start({ store: mine, durability: fast({ instanceId: 'i2', encryption: ONLY_K1 }), setup: echo })
    expect(u.bot.store).toBe(mine)
  })

  it('refuses a bad encryption option before it starts, naming the option and never the key', () => {
    let caught: unknown
    try {
      bots.create({ durability: fast({ encryption: { keys: { k1: k1.subarray(0, 31) }, current: 'k1' } }) })
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(BotmeshError)
    expect((caught as BotmeshError).code).toBe('CONFIG_INVALID')
    expect((caught as Error).message).toBe('durability.encryption.keys.k1 must be 32 bytes (AES-256); it has 31')
  })
})
