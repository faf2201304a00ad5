/**
 * The steps engine holds the same rule as the message engine (test/core/start-sweep-failed.test.ts):
 * when a restarted bot's first sweep fails with the store away, a new message of a chat must not run
 * ahead of what the dead earlier run left in it. The sweep's `takeBack` step fails here instead of
 * a journal read. Both engines get the rule from one place (engine-frame.ts and recovery.ts).
 */
import { describe, expect, it, vi } from 'vitest'
import { onEngine } from '../../../test-utils/engine.js'
import { StepsEngine } from '../../../src/core/durability/steps/steps-engine.js'
import { JournalCorruptError, JournalUnavailableError } from '../../../src/core/errors/errors.js'
import { TEXT } from '../../../src/core/bot/matchers.js'
import { waitFor } from '../../../test-utils/wait.js'
import { leftByADeadRun } from '../dead-run.js'
import { fast, recordId, useBots } from '../helpers.js'
import { ScriptedSteps } from './scripted-steps.js'

const bots = useBots()
onEngine('steps')

describe('the steps engine, when a start finds its first sweep failing', () => {
  it("refuses a new message of a chat until a sweep has taken back the chat's older one, which then runs first", async () => {
    const memory = new ScriptedSteps()
    await leftByADeadRun(bots, memory, true)
    const runs: string[] = []
    memory.takeBackFailure = new Error('connection refused (scripted)')
    const restarted = await bots.start({
      durability: fast({ backend: memory, instanceId: 'bot' }),
      untapped: true,
      setup: (bot) =>
        bot.when(TEXT, async (ctx) => {
          runs.push(ctx.message.text)
          await ctx.reply(`re ${ctx.message.text}`)
        }),
    })
    // m2 of the same chat arrives meanwhile: refused (by the steps engine), retryably, and nothing runs.
    const stepsAdmits = vi.spyOn(StepsEngine.prototype, 'admit')
    const refused = await restarted.provider.receive({ id: 'm2', chatId: 'c1', text: 'second' }).catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(JournalUnavailableError)
    expect((refused as JournalUnavailableError).retryable).toBe(true)
    expect(runs).toEqual([])
    expect(stepsAdmits).toHaveBeenCalledTimes(1)
    stepsAdmits.mockRestore()

    // The store is back: the redelivery of m2 waits for a sweep, which takes m1 back first.
    memory.takeBackFailure = undefined
    await restarted.provider.receive({ id: 'm2', chatId: 'c1', text: 'second' })
    await waitFor(() => runs.length === 2, { message: 'm1 and m2 ran' })
    expect(runs).toEqual(['first', 'second'])
    expect(restarted.provider.texts()).toEqual(['re first', 're second'])
    await waitFor(async () => (await restarted.bot.durability!.inbox.get(recordId('m2')))?.state === 'done', { message: 'm2 done' })
    expect(restarted.dead).toEqual([])
  })

  it('that a retry cannot mend (a record the journal cannot decode) holds no message back', async () => {
    const memory = new ScriptedSteps()
    await leftByADeadRun(bots, memory, true)
    const runs: string[] = []
    memory.takeBackFailure = new JournalCorruptError('the journal', 'a record cannot be decoded (scripted)')
    const restarted = await bots.start({
      durability: fast({ backend: memory, instanceId: 'bot' }),
      untapped: true,
      setup: (bot) => bot.when(TEXT, (ctx) => void runs.push(ctx.message.text)),
    })
    await restarted.provider.receive({ id: 'm2', chatId: 'c2', text: 'other chat' })
    await waitFor(() => runs.includes('other chat'), { message: 'm2 ran' })
    memory.takeBackFailure = undefined
  })
})
