/**
 * Issue 41, item 6: a sealed value opens only where it was sealed. Someone with write access to
 * the store moves a sealed value to another scope or chat, or edits a record's clear chat id to
 * redirect a sealed reply: the value no longer opens, with SealedValueAlteredError
 * (ENCRYPTION_ALTERED), and nothing is sent or run. Values sealed in format 1 (before the binding)
 * are still read.
 */
import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { MemoryDurability, MemoryStore, TEXT, type Bot } from '../../src/core/index.js'
import { EncryptionKeyMissingError } from '../../src/core/errors/errors.js'
import { SealedValueAlteredError } from '../../src/core/encryption/encryption-errors.js'
import type { InboxRecord, OutboxRecord } from '../../src/core/durability/journal/records.js'
import { sealedInFormat1 } from '../../test-utils/sealed-format-1.js'
import { fast, recordId, useBots } from './helpers.js'

const k1 = randomBytes(32)
const ONLY_K1 = { keys: { k1 }, current: 'k1' }

const remember = (bot: Bot) =>
  bot.when(TEXT, async (ctx) => {
    await ctx.user.set('note', ctx.message.text!)
    await ctx.reply(`noted: ${ctx.message.text}`)
  })

/** What a rejected promise rejected with. */
async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected a rejection')
}

function expectAltered(error: unknown, what: string): void {
  expect(error).toBeInstanceOf(SealedValueAlteredError)
  expect(error).toBeInstanceOf(EncryptionKeyMissingError)
  expect((error as SealedValueAlteredError).code).toBe('ENCRYPTION_ALTERED')
  expect((error as SealedValueAlteredError).reason).toBe('altered')
  expect((error as Error).message).toContain(what)
  expect((error as Error).message).toContain('moved from another record, chat or scope')
}

describe('a sealed value bound to its scope and chat', () => {
  const bots = useBots()

  it('does not open a store value moved to another scope or another chat', async () => {
    const inner = Object.assign(new MemoryStore(), { sealable: true })
    const t = await bots.start({ store: inner, durability: fast({ instanceId: 'i1', encryption: ONLY_K1 }), setup: remember })
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'vip: yes' })
    await t.bot.idle()
    const scope = t.bot.durability!.scope
    expect(await t.bot.store.getUser(scope, 'c1', 'note')).toBe('vip: yes')

    const sealed = (await inner.getUser(scope, 'c1', 'note'))!
    await inner.setUser('acme/prod/other/default', 'c1', 'note', sealed)
    await inner.setUser(scope, 'mallory', 'note', sealed)
    expectAltered(await rejectionOf(t.bot.store.getUser('acme/prod/other/default', 'c1', 'note')), 'the user data "note" of chat "c1"')
    expectAltered(await rejectionOf(t.bot.store.getUser(scope, 'mallory', 'note')), 'the user data "note" of chat "mallory"')

    const [line] = await inner.listLog(scope, 'c1', 1)
    await inner.appendLog('acme/prod/other/default', line!)
    expectAltered(await rejectionOf(t.bot.store.listLog('acme/prod/other/default', 'c1', 1)), 'a message log line of chat "c1"')
  })

  it('does not send a reply whose record had its clear chat id edited', async () => {
    const memory = new MemoryDurability()
    const t = await bots.start({ durability: fast({ backend: memory, instanceId: 'i1', encryption: ONLY_K1 }), setup: remember })
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'my address is 1 Main St' })
    await t.bot.idle()
    const raw = memory.journal(t.bot.durability!.scope)
    const [sent] = await raw.list('outbox', { state: 'sent', limit: 1 })
    // Redirected to mallory and made retryable, as a store writer could.
    const redirected: OutboxRecord = { ...sent!.record, chatId: 'mallory', state: 'dead', providerMessageId: null }
    expect((await raw.write('operator.import', [{ kind: 'outbox', record: redirected, expectVersion: sent!.version }]))[0]!.ok).toBe(true)

    expectAltered(await rejectionOf(t.bot.durability!.retrySend(redirected.key)), `the outbox record "${redirected.key}"`)
    await t.bot.idle()
    expect(t.provider.sent.map((s) => s.chatId)).toEqual(['c1'])
  })

  it('does not replay an inbound record copied into another scope, or whose chat id was edited', async () => {
    const memory = new MemoryDurability()
    const a = await bots.start({
      botId: 'a',
      durability: fast({ backend: memory, instanceId: 'i1', encryption: ONLY_K1 }),
      setup: remember,
    })
    const b = await bots.start({
      botId: 'b',
      durability: fast({ backend: memory, instanceId: 'i2', encryption: ONLY_K1 }),
      setup: remember,
    })
    await a.provider.receive({ id: 'm1', chatId: 'c1', text: 'for bot a only' })
    await a.bot.idle()
    const [done] = await memory.journal(a.bot.durability!.scope).read('inbox', [recordId('m1')])
    const copied: InboxRecord = { ...done!.record, state: 'dead' }
    await memory.journal(b.bot.durability!.scope).write('operator.import', [{ kind: 'inbox', record: copied, expectVersion: 0 }])
    expectAltered(await rejectionOf(b.bot.durability!.replayInbound(copied.id)), `the inbox record "${copied.id}"`)

    const edited: InboxRecord = { ...done!.record, chatId: 'mallory', state: 'dead' }
    await memory
      .journal(a.bot.durability!.scope)
      .write('operator.import', [{ kind: 'inbox', record: edited, expectVersion: done!.version }])
    expectAltered(await rejectionOf(a.bot.durability!.replayInbound(edited.id)), `the inbox record "${edited.id}"`)
    await a.bot.idle()
    await b.bot.idle()
    expect([...a.provider.sent, ...b.provider.sent].map((s) => s.chatId)).toEqual(['c1'])
  })

  it('opens an older value put back in its own place: the binding names the place, not the version (a rollback is not detected)', async () => {
    const inner = Object.assign(new MemoryStore(), { sealable: true })
    const t = await bots.start({ store: inner, durability: fast({ instanceId: 'i1', encryption: ONLY_K1 }), setup: remember })
    const scope = t.bot.durability!.scope
    await t.bot.store.setUser(scope, 'c1', 'plan', 'free')
    const older = (await inner.getUser(scope, 'c1', 'plan'))!
    await t.bot.store.setUser(scope, 'c1', 'plan', 'paid')
    await inner.setUser(scope, 'c1', 'plan', older)
    expect(await t.bot.store.getUser(scope, 'c1', 'plan')).toBe('free')
  })

  it('still reads values sealed in format 1, and seals new ones in format 2', async () => {
    const inner = Object.assign(new MemoryStore(), { sealable: true })
    const t = await bots.start({ store: inner, durability: fast({ instanceId: 'i1', encryption: ONLY_K1 }), setup: remember })
    const scope = t.bot.durability!.scope
    await inner.setUser(scope, 'c1', 'old', sealedInFormat1(k1, 'k1', JSON.stringify('written by 0.2'), 'user\0c1\0old'))
    expect(await t.bot.store.getUser(scope, 'c1', 'old')).toBe('written by 0.2')
    await t.bot.store.setUser(scope, 'c1', 'old', 'written again')
    expect(String(await inner.getUser(scope, 'c1', 'old'))).toMatch(/^\$sealed:2:k1:/)
  })
})
