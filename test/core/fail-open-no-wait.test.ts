/**
 * Issue 45, item 7: `failOpen: true` with the journal down. A message the inbox could not take has
 * no record to protect, so its sends must not wait for the journal the inbox already found down.
 * Before, the sent mark of its first reply was retried for half the outbox lease (30 s by default)
 * and its next reply waited for it (the marks of earlier sends land first) before it went out
 * unjournaled; the chat's lane waited as long. Leases here are the defaults (60 s), and the engine's
 * clock is a ManualClock that never moves: nothing can expire, and each wait allowed (5 s) is far
 * below the 30 s of the defect, so a loaded machine does not make the test flaky.
 */
import { describe, expect, it } from 'vitest'
import { TEXT } from '../../src/core/bot/matchers.js'
import { ManualClock } from '../../src/testing/manual-clock.js'
import { MemoryDurability } from '../../src/core/index.js'
import { waitFor } from '../../test-utils/wait.js'
import { useBots, type TapCall } from './helpers.js'

const bots = useBots()

/** Far below half the default lease (30 s), far above what the sends take on a loaded machine. */
const MARGIN_MS = 5_000

/**
 * The journal refuses the inbox admission, takes the first reply's outbox record and then goes down
 * for good: every later read and write fails, the first reply's sent mark included.
 */
function downAfterFirstJournal(): (call: TapCall) => void {
  let journaled = false
  return (call) => {
    if (call.op === 'write' && call.name === 'inbox.admit') throw new Error('journal down (scripted)')
    if (journaled && (call.op === 'read' || call.op === 'write')) throw new Error('journal down (scripted)')
    if (call.op === 'write' && call.name === 'outbox.journal') journaled = true
  }
}

describe('failOpen: true, the journal down', () => {
  it("a message's replies go out at once, not half a lease later, and its chat's next message runs", async () => {
    const clock = new ManualClock()
    const t = await bots.start({
      durability: { backend: new MemoryDurability({ now: clock.now }), clock: clock.now, failOpen: true, pollMs: '1h' },
      setup: (bot) =>
        bot.when(TEXT, async (ctx) => {
          await ctx.reply(`first to ${ctx.message.text}`)
          await ctx.reply(`second to ${ctx.message.text}`)
        }),
    })
    t.tap!.intercept(downAfterFirstJournal())
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await waitFor(() => t.provider.sent.length === 2, { timeoutMs: MARGIN_MS, message: 'both replies to m1 sent' })
    expect(t.provider.texts()).toEqual(['first to hi', 'second to hi'])
    // The second reply went out unjournaled: the outbox could not take it.
    expect(t.bot.durability!.metrics().outboxBypassed).toBe(1)

    await t.provider.receive({ id: 'm2', chatId: 'c1', text: 'again' })
    await waitFor(() => t.provider.sent.length === 4, { timeoutMs: MARGIN_MS, message: 'both replies to m2 sent' })
    expect(t.provider.texts().slice(2)).toEqual(['first to again', 'second to again'])
    await t.bot.idle()
  })
})
