/**
 * A claim whose journal write went unanswered (the store took it, its answer was lost: a dropped
 * connection, or `waitReplicas` timing out while the replicas are away) charged a run that never
 * started. Taking that record again must not charge it once more: otherwise a store away for a few
 * leases dead-letters acknowledged messages whose handler never ran (issue 42: m0 to m6 of the
 * Sentinel failover test, taken back by the new bot while the promoted primary had no replica yet).
 */
import { describe, expect, it } from 'vitest'
import { MemoryDurability } from '../../src/core/index.js'
import type { InboxRecord } from '../../src/core/durability/journal/records.js'
import { JournalUnavailableError } from '../../src/core/errors/errors.js'
import { TEXT } from '../../src/core/bot/matchers.js'
import { crashable } from '../../src/testing/crashable.js'
import { ManualClock } from '../../src/testing/manual-clock.js'
import { aroundJournalWrites } from '../../src/testing/wrap-writes.js'
import { deferred, waitFor } from '../../test-utils/wait.js'
import { fast, recordId, sweeps, useBots } from './helpers.js'

const bots = useBots()
const LEASE_MS = 300
const MAX_ATTEMPTS = 3
/** More unanswered claims than the runs a message has: each one charged would dead-letter it. */
const UNANSWERED = MAX_ATTEMPTS + 1

describe('a claim whose write went unanswered', () => {
  it('is taken again without another run charged: the message runs once and is answered, not dead-lettered', async () => {
    const clock = new ManualClock()
    const memory = new MemoryDurability({ now: clock.now })
    const options = { clock: clock.now, inbox: { leaseMs: LEASE_MS, maxAttempts: MAX_ATTEMPTS }, outbox: { leaseMs: LEASE_MS } }

    // a admits m1 and dies in its handler: the record stays processing under a's lease.
    const dying = crashable(memory)
    const inHandler = deferred()
    const a = await bots.start({
      durability: fast({ ...options, backend: dying, instanceId: 'a' }),
      setup: (bot) => bot.when(TEXT, () => (inHandler.resolve(), new Promise(() => {}))),
    })
    await a.provider.receive({ id: 'm1', chatId: 'c1', text: 'hello' })
    await inHandler.promise
    dying.crashNow()
    bots.abandon(a)

    // b takes it over; its first claims land in the journal, and their answers are lost.
    let unanswered = UNANSWERED
    const lossy = aroundJournalWrites(memory, async (name, writes, write) => {
      const results = await write()
      if (name === 'inbox.claim' && unanswered > 0) {
        unanswered--
        throw new JournalUnavailableError('the claim landed; its answer was lost')
      }
      return results
    })
    const runs: string[] = []
    const b = await bots.start({
      durability: fast({ ...options, backend: lossy, instanceId: 'b' }),
      setup: (bot) =>
        bot.when(TEXT, async (ctx) => {
          runs.push(ctx.ref.id)
          await ctx.reply(`re ${ctx.message.text}`)
        }),
    })
    const record = () => b.bot.durability!.inbox.get(recordId('m1')) as Promise<InboxRecord>
    for (let lease = 0; lease < 4 * UNANSWERED && (await record()).state !== 'done'; lease++) {
      clock.advance(LEASE_MS + 1)
      await sweeps(b, 2)
    }
    await waitFor(async () => (await record()).state !== 'processing', { message: 'm1 settled' })
    expect((await record()).state).toBe('done')
    expect(unanswered).toBe(0)
    expect(b.dead).toEqual([])
    expect(runs).toEqual([recordId('m1')])
    expect(b.provider.texts()).toEqual(['re hello'])
    // One run charged at admission (a's, which died), one for b's run: none for the claims unanswered.
    expect((await record()).attempts).toBe(2)
  })
})
