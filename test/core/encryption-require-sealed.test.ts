/**
 * Issue 41, item 6: `durability.encryption.requireSealed`. On a journal that is sealed, content in
 * clear can only come from someone who writes to the store: a forged inbound message, a forged
 * send, a forged user value. Without the option a bot takes them as written before encryption was
 * turned on (each case below shows it does); with it, each is refused with UnsealedValueError
 * (ENCRYPTION_UNSEALED): never run, never sent, never read.
 */
import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { BotmeshError, MemoryDurability, MemoryStore, TEXT, type Bot, type InboxRecord, type OutboxRecord } from '../../src/core/index.js'
import { UnsealedValueError } from '../../src/core/encryption/encryption-errors.js'
import { waitFor } from '../../test-utils/wait.js'
import { fast, recordId, useBots } from './helpers.js'

const k1 = randomBytes(32)

const remember = (bot: Bot) =>
  bot.when(TEXT, async (ctx) => {
    await ctx.reply(`noted: ${ctx.message.text}`)
  })

const unsealed = (errors: unknown[]) => errors.filter((e): e is UnsealedValueError => e instanceof UnsealedValueError)

describe('durability.encryption.requireSealed', () => {
  const bots = useBots()

  for (const requireSealed of [false, true]) {
    it(`${requireSealed ? 'refuses' : 'without it, takes'} a clear inbound record and a clear send written into a sealed journal`, async () => {
      const memory = new MemoryDurability()
      const t = await bots.start({
        durability: fast({ backend: memory, instanceId: 'i1', encryption: { keys: { k1 }, current: 'k1', requireSealed } }),
        setup: remember,
      })
      await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'hello' })
      await t.bot.idle()
      const d = t.bot.durability!
      const [done] = await d.inbox.list({ state: 'done' })
      const [sent] = await d.outbox.list({ state: 'sent' })
      // What a store writer forges: content in clear, shaped like the bot's own records.
      const event = { ...(done!.event as Record<string, unknown>), id: 'm9', text: 'forged order' }
      const inbound: InboxRecord = { ...done!, id: recordId('m9'), event, state: 'pending', attempts: 0, lease: null }
      const send: OutboxRecord = { ...sent!, key: 'forged', fingerprint: null, state: 'dead', providerMessageId: null }
      const raw = memory.journal(d.scope)
      await raw.write('operator.import', [
        { kind: 'inbox', record: inbound, expectVersion: 0 },
        { kind: 'outbox', record: send, expectVersion: 0 },
      ])

      if (requireSealed) {
        await waitFor(() => unsealed(t.errors).length > 0, { message: 'the clear inbound record is reported' })
        const [error] = unsealed(t.errors)
        expect(error!.code).toBe('ENCRYPTION_UNSEALED')
        expect(error!.message).toContain(`the event of the inbox record "${recordId('m9')}" is in clear`)
        await expect(d.retrySend('forged')).rejects.toMatchObject({ name: 'UnsealedValueError', code: 'ENCRYPTION_UNSEALED' })
        await t.bot.idle()
        expect(t.provider.texts()).toEqual(['noted: hello'])
        expect((await raw.read('inbox', [recordId('m9')]))[0]!.record.state).toBe('pending')
      } else {
        await d.retrySend('forged')
        await waitFor(() => t.provider.texts().includes('noted: forged order'), { message: 'the forged message runs' })
        expect(t.provider.texts().filter((text) => text === 'noted: hello')).toHaveLength(2)
      }
    })
  }

  it('refuses clear user data and checkpoints in a sealed store; without it, reads them', async () => {
    for (const requireSealed of [false, true]) {
      const inner = Object.assign(new MemoryStore(), { sealable: true })
      const t = await bots.start({
        store: inner,
        durability: fast({ instanceId: `i-${requireSealed}`, encryption: { keys: { k1 }, current: 'k1', requireSealed } }),
      })
      const scope = t.bot.durability!.scope
      await inner.setUser(scope, 'c1', 'role', 'admin')
      await inner.setCheckpoint(scope, 'c1', { flow: 'refund', step: 2 })
      const reads = [t.bot.store.getUser(scope, 'c1', 'role'), t.bot.store.getCheckpoint(scope, 'c1')]
      if (!requireSealed) {
        expect(await Promise.all(reads)).toEqual(['admin', { flow: 'refund', step: 2 }])
        continue
      }
      for (const read of reads) await expect(read).rejects.toBeInstanceOf(UnsealedValueError)
      // What the bot writes itself is sealed, and reads back.
      await t.bot.store.setUser(scope, 'c1', 'role', 'member')
      expect(await t.bot.store.getUser(scope, 'c1', 'role')).toBe('member')
      await t.bot.stop()
    }
  })

  it('takes only true or false', () => {
    let caught: unknown
    try {
      bots.create({ durability: fast({ encryption: { keys: { k1 }, current: 'k1', requireSealed: 'yes' as never } }) })
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(BotmeshError)
    expect((caught as BotmeshError).message).toBe('durability.encryption.requireSealed must be true or false; got string')
  })
})
