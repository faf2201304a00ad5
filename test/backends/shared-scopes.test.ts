/**
 * Two bots (different botIds) on one shared backend (PostgreSQL, Redis), each on a backend object of
 * its own as separate processes would be: each works in its own scope. A bot claims, replays and
 * deduplicates only its own records, and explicit idempotency keys are per bot: two bots enqueueing
 * reminder:1 each send their own.
 */
import { describe, expect, it } from 'vitest'
import type { Bot } from '../../src/core/bot/bot.js'
import type { InboxRecord } from '../../src/core/durability/journal/records.js'
import { TEXT } from '../../src/core/bot/matchers.js'
import { crashable } from '../../src/testing/crashable.js'
import { recordId } from '../../test-utils/record-id.js'
import { never, waitFor } from '../../test-utils/wait.js'
import { quick, sweeps, useSharedBots } from './shared-bots.js'
import { sharedTargets } from './shared-targets.js'

const targets = await sharedTargets()
const TEST_TIMEOUT_MS = 90_000

const replyAs = (name: string) => (bot: Bot) => bot.when(TEXT, (ctx) => ctx.reply(`${name}: re ${ctx.ref.id}`))

describe.each(targets)('two bots on one $name backend', (target) => {
  const bots = useSharedBots()

  it.runIf(target.available)(
    'keep separate scopes: the same message id is handled by each, and each lists only its own records',
    async () => {
      const storage = bots.storage(target)
      const sales = await bots.start(storage, { botId: 'sales', durability: quick({ instanceId: 'sales-0' }), setup: replyAs('sales') })
      const support = await bots.start(storage, {
        botId: 'support',
        durability: quick({ instanceId: 'support-0' }),
        setup: replyAs('support'),
      })
      expect(sales.bot.durability!.scope).toBe('default/default/sales/default')
      expect(support.bot.durability!.scope).toBe('default/default/support/default')

      // One channel event id, delivered to both bots: not a duplicate across bots.
      await sales.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
      await support.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
      // A redelivery to the same bot is.
      await sales.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
      await sales.bot.idle()
      await support.bot.idle()
      expect(sales.provider.texts()).toEqual([`sales: re ${recordId('m1')}`])
      expect(support.provider.texts()).toEqual([`support: re ${recordId('m1')}`])
      expect(sales.bot.durability!.metrics()).toMatchObject({ inboundJournaled: 1, inboundDuplicates: 1 })
      expect(support.bot.durability!.metrics()).toMatchObject({ inboundJournaled: 1, inboundDuplicates: 0 })

      const onlyMine = async (bot: Bot) => (await bot.durability!.inbox.list()).map((record) => `${record.id}:${record.state}`)
      await support.provider.receive({ id: 'm2', chatId: 'c2', text: 'support only' })
      await support.bot.idle()
      expect(await onlyMine(sales.bot)).toEqual([`${recordId('m1')}:done`])
      expect((await onlyMine(support.bot)).sort()).toEqual([`${recordId('m1')}:done`, `${recordId('m2', 'c2')}:done`].sort())
      const reader = storage.open()
      await reader.start()
      const scopes = await reader.scopes()
      expect(scopes).toEqual(expect.arrayContaining(['default/default/sales/default', 'default/default/support/default']))
    },
    TEST_TIMEOUT_MS,
  )

  it.runIf(target.available)(
    'explicit idempotency keys are per bot: two bots enqueueing reminder:1 each send their own, once',
    async () => {
      const storage = bots.storage(target)
      const sales = await bots.start(storage, { botId: 'sales', durability: quick({ instanceId: 'sales-0' }) })
      const support = await bots.start(storage, { botId: 'support', durability: quick({ instanceId: 'support-0' }) })
      const first = await sales.bot.enqueue('c1', 'sales reminder', { idempotencyKey: 'reminder:1' })
      await support.bot.enqueue('c1', 'support reminder', { idempotencyKey: 'reminder:1' })
      // A second enqueue of the key in the same bot is a no-op.
      await sales.bot.enqueue('c1', 'sales reminder', { idempotencyKey: 'reminder:1' })
      expect(first.key).toBe('reminder:1')
      await waitFor(async () => (await sales.bot.durability!.outbox.get('reminder:1'))?.state === 'sent', { timeoutMs: 20_000 })
      await waitFor(async () => (await support.bot.durability!.outbox.get('reminder:1'))?.state === 'sent', { timeoutMs: 20_000 })
      await sales.bot.idle()
      await support.bot.idle()
      expect(sales.provider.texts()).toEqual(['sales reminder'])
      expect(support.provider.texts()).toEqual(['support reminder'])
      // And an explicit send under the key is answered from that bot's own outbox.
      const again = await support.bot.send('c1', 'support reminder', { idempotencyKey: 'reminder:1' })
      expect(again.deduped).toBe(true)
      expect(support.provider.sent).toHaveLength(1)
    },
    TEST_TIMEOUT_MS,
  )

  it.runIf(target.available)(
    'a bot never claims another bot’s records: a dead support bot’s expired lease waits for a support bot, while sales sweeps on',
    async () => {
      const storage = bots.storage(target)
      const probe = storage.open()
      await probe.start()
      const journal = probe.journal('default/default/support/default')
      const sales = await bots.start(storage, {
        botId: 'sales',
        durability: quick({ instanceId: 'shared-host-0', inbox: { leaseMs: 500 } }),
        setup: replyAs('sales'),
      })
      const crashed = crashable(storage.open())
      const dead = await bots.start(storage, {
        botId: 'support',
        backend: crashed,
        durability: quick({ instanceId: 'support-0', inbox: { leaseMs: 500 } }),
        setup: (bot) =>
          bot.when(TEXT, async () => {
            crashed.crashNow()
            await never()
          }),
      })
      await dead.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
      await crashed.whenCrashed()
      bots.abandon(dead)
      const left = (await journal.read('inbox', [recordId('m1')]))[0]!.record
      // Well past the lease's expiry on the server's clock, sales has swept again and again.
      await waitFor(async () => (await probe.now()) > left.lease!.expiresAt + 200, { timeoutMs: 10_000, intervalMs: 50 })
      await sweeps(sales, 5)
      expect((await journal.read('inbox', [recordId('m1')]))[0]!.record).toMatchObject({
        state: 'processing',
        fencingToken: 1,
        lease: { owner: 'support-0' },
      })
      expect(sales.tap.written<InboxRecord>('inbox.claim')).toEqual([])
      expect(sales.provider.sent).toEqual([])

      // A support replica (another instanceId) takes it over.
      const support = await bots.start(storage, {
        botId: 'support',
        durability: quick({ instanceId: 'support-1', inbox: { leaseMs: 500 } }),
        setup: replyAs('support'),
      })
      await waitFor(async () => (await journal.read('inbox', [recordId('m1')]))[0]!.record.state === 'done', { timeoutMs: 20_000 })
      expect((await journal.read('inbox', [recordId('m1')]))[0]!.record.fencingToken).toBe(2)
      expect(support.provider.texts()).toEqual([`support: re ${recordId('m1')}`])
      expect(sales.bot.durability!.metrics().inboundReplayed).toBe(0)
    },
    TEST_TIMEOUT_MS,
  )
})
