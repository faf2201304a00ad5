/**
 * A step that landed in the store while its answer was lost (a dropped connection; `waitReplicas`
 * timing out on a promoted primary): the event is refused, the channel delivers it again, and the
 * store answers the redelivery as a duplicate of a message this very run claimed. Nothing runs it;
 * before, it waited out its lease (here ten minutes) and was then charged a second run.
 */
import { describe, expect, it } from 'vitest'
import { onEngine } from '../../../test-utils/engine.js'
import { JournalUnavailableError } from '../../../src/core/errors/errors.js'
import { TEXT } from '../../../src/core/bot/matchers.js'
import { waitFor } from '../../../test-utils/wait.js'
import { fast, recordId, useBots } from '../helpers.js'
import { ScriptedSteps } from './scripted-steps.js'

const bots = useBots()
onEngine('steps')

describe('the steps engine, when an admission landed but its answer was lost', () => {
  it("runs the redelivery at once, on the run that claim charged, and the chat's next message after it", async () => {
    const memory = new ScriptedSteps()
    const runs: string[] = []
    // A lease far longer than the test: m1 does not run because its lease ran out.
    const t = await bots.start({
      durability: fast({ backend: memory, instanceId: 'bot', inbox: { leaseMs: 600_000 } }),
      untapped: true,
      setup: (bot) =>
        bot.when(TEXT, async (ctx) => {
          runs.push(ctx.message.text)
          await ctx.reply(`re ${ctx.message.text}`)
        }),
    })
    memory.lostAdmits = 1
    const refused = await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'first' }).catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(JournalUnavailableError)
    expect(runs).toEqual([])

    // The channel delivers m1 again, then m2 of the same chat (queued behind m1 in the journal).
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'first' })
    await t.provider.receive({ id: 'm2', chatId: 'c1', text: 'second' })
    await waitFor(() => runs.length === 2, { message: 'm1 and m2 ran' })
    expect(runs).toEqual(['first', 'second'])
    expect(t.provider.texts()).toEqual(['re first', 're second'])
    await waitFor(async () => (await t.bot.durability!.inbox.get(recordId('m2')))?.state === 'done', { message: 'm2 done' })
    expect((await t.bot.durability!.inbox.get(recordId('m1')))?.attempts).toBe(1)
  })
})
