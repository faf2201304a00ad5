/**
 * A restarted bot's first sweep takes back what its dead earlier run left and queues it in its
 * chats before new messages come in. When that sweep fails (the store briefly away: a Sentinel
 * failover, a promoted replica not yet taking writes), a new message of such a chat must not run
 * ahead of the older ones: it is refused (the channel delivers it again) until a sweep gets through.
 * Seen in the failover test before: the new bot answered chat-0's m0, then m30 to m54, then m6 to m24.
 */
import { describe, expect, it } from 'vitest'
import { MemoryDurability } from '../../src/core/index.js'
import { JournalCorruptError, JournalUnavailableError } from '../../src/core/errors/errors.js'
import { TEXT } from '../../src/core/bot/matchers.js'
import { aroundJournalWrites } from '../../src/testing/wrap-writes.js'
import { waitFor } from '../../test-utils/wait.js'
import { leftByADeadRun } from './dead-run.js'
import { fast, recordId, useBots } from './helpers.js'

const bots = useBots()

describe('a start whose first sweep failed', () => {
  it("refuses a new message of a chat until a sweep has taken back the chat's older one, which then runs first", async () => {
    const memory = new MemoryDurability()
    await leftByADeadRun(bots, memory)

    // The restart finds the store away for its sweeps.
    const runs: string[] = []
    const restarted = bots.create({
      durability: fast({ backend: memory, instanceId: 'bot' }),
      setup: (bot) =>
        bot.when(TEXT, async (ctx) => {
          runs.push(ctx.message.text)
          await ctx.reply(`re ${ctx.message.text}`)
        }),
    })
    let away = true
    restarted.tap!.intercept((call) => {
      if (away && call.op === 'due') throw new JournalUnavailableError('the store is away (scripted)')
    })
    await restarted.bot.start()

    // m2 of the same chat arrives meanwhile: refused, retryably, and nothing runs.
    const refused = await restarted.provider.receive({ id: 'm2', chatId: 'c1', text: 'second' }).catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(JournalUnavailableError)
    expect((refused as JournalUnavailableError).retryable).toBe(true)
    expect(runs).toEqual([])

    // The store is back: the redelivery of m2 waits for a sweep, which takes m1 back first.
    away = false
    await restarted.provider.receive({ id: 'm2', chatId: 'c1', text: 'second' })
    await waitFor(() => runs.length === 2, { message: 'm1 and m2 ran' })
    expect(runs).toEqual(['first', 'second'])
    expect(restarted.provider.texts()).toEqual(['re first', 're second'])
    await waitFor(async () => (await restarted.bot.durability!.inbox.get(recordId('m2')))?.state === 'done', { message: 'm2 done' })
    expect(restarted.dead).toEqual([])
  })

  it('that a retry cannot mend (a record the journal cannot decode) holds no message back: every sweep would fail alike', async () => {
    const memory = new MemoryDurability()
    await leftByADeadRun(bots, memory)
    const runs: string[] = []
    const restarted = bots.create({
      durability: fast({ backend: memory, instanceId: 'bot' }),
      setup: (bot) => bot.when(TEXT, (ctx) => void runs.push(ctx.message.text)),
    })
    let corrupt = true
    restarted.tap!.intercept((call) => {
      if (corrupt && call.op === 'due') throw new JournalCorruptError('the journal', 'a record cannot be decoded (scripted)')
    })
    await restarted.bot.start()
    await restarted.provider.receive({ id: 'm2', chatId: 'c2', text: 'other chat' })
    await waitFor(() => runs.includes('other chat'), { message: 'm2 ran' })
    corrupt = false
  })

  it("whose claim of the dead run's message landed unanswered takes that message back at the next sweep, ahead of the chat's new one", async () => {
    // Seen in the Sentinel failover test with waitReplicas: the new bot's claims landed on a primary
    // with no replica yet and failed, and m24, m30… of chat-0 ran before m0, m6… which it had claimed.
    const memory = new MemoryDurability()
    await leftByADeadRun(bots, memory)
    let unanswered = 1
    const lossy = aroundJournalWrites(memory, async (name, writes, write) => {
      const results = await write()
      if (name === 'inbox.claim' && unanswered > 0) {
        unanswered--
        throw new JournalUnavailableError('the claim landed; its answer was lost (scripted)')
      }
      return results
    })
    const runs: string[] = []
    // A lease far longer than the test: m1 is not taken back because the claim's lease ran out.
    const restarted = await bots.start({
      durability: fast({ backend: lossy, instanceId: 'bot', inbox: { leaseMs: 600_000 } }),
      setup: (bot) => bot.when(TEXT, (ctx) => void runs.push(ctx.message.text)),
    })
    expect(unanswered).toBe(0)
    await restarted.provider.receive({ id: 'm2', chatId: 'c1', text: 'second' })
    await waitFor(() => runs.length === 2, { message: 'm1 and m2 ran' })
    expect(runs).toEqual(['first', 'second'])
    expect(restarted.dead).toEqual([])
  })
})
