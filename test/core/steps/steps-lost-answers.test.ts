/**
 * A step that landed in the store while its answer was lost (a dropped connection; `waitReplicas`
 * timing out on a promoted primary). An admission: the event is refused, the channel delivers it
 * again, and the store answers the redelivery as a duplicate of a message this very run claimed. A
 * settle that handed its chat's next message over, or a take-back that claimed one: the next sweep
 * finds it claimed by this run and run nowhere (lost-claims.ts). Before, each waited out its lease
 * (here ten minutes) and was then charged a second run.
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

/**
 * A bot answering `re <text>` on `memory`, its leases far longer than the test (a message does not
 * run because its lease ran out); `runs` lists the texts its handler ran, `before` runs first.
 */
async function answering(memory: ScriptedSteps, before?: (text: string) => void) {
  const runs: string[] = []
  const t = await bots.start({
    durability: fast({ backend: memory, instanceId: 'bot', inbox: { leaseMs: 600_000 } }),
    untapped: true,
    setup: (bot) =>
      bot.when(TEXT, async (ctx) => {
        runs.push(ctx.message.text)
        before?.(ctx.message.text)
        await ctx.reply(`re ${ctx.message.text}`)
      }),
  })
  return { t, runs }
}

describe('the steps engine, when a step landed but its answer was lost', () => {
  it("runs the redelivery at once, on the run that claim charged, and the chat's next message after it", async () => {
    const memory = new ScriptedSteps()
    const { t, runs } = await answering(memory)
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

  it("runs the chat's next message a settle handed over when the settle's answer was lost, on the run its hand-over charged", async () => {
    const memory = new ScriptedSteps()
    const { t, runs } = await answering(memory, (text) => {
      if (text === 'first') memory.lostSettles = 1
    })
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'first' })
    await t.provider.receive({ id: 'm2', chatId: 'c1', text: 'second' })
    await waitFor(() => runs.length === 2, { message: "m2 ran after the lost answer of m1's settle" })
    await t.bot.idle()
    expect(runs).toEqual(['first', 'second'])
    expect(t.provider.texts()).toEqual(['re first', 're second'])
    expect(await t.bot.durability!.inbox.get(recordId('m1'))).toMatchObject({ state: 'done', attempts: 1 })
    expect(await t.bot.durability!.inbox.get(recordId('m2'))).toMatchObject({ state: 'done', attempts: 1 })
  })

  it('runs a message a take-back claimed when its answer was lost, on the run that claim charged', async () => {
    const memory = new ScriptedSteps()
    // The first run of the instance dies with m1 running (long leases, no sweeps: as quiet as a dead process).
    const first = await bots.start({
      durability: fast({ backend: memory, instanceId: 'bot', pollMs: '1h', inbox: { leaseMs: '1h' } }),
      untapped: true,
      setup: (bot) => bot.when(TEXT, () => new Promise<void>(() => {})),
    })
    await first.provider.receive({ id: 'm1', chatId: 'c1', text: 'first' })
    await waitFor(async () => (await first.bot.durability!.inbox.get(recordId('m1')))?.state === 'processing', { message: 'm1 ran' })
    bots.abandon(first)
    // The next run's first take-back claims m1, and its answer is lost.
    memory.lostTakeBacks = 1
    const { t, runs } = await answering(memory)
    await waitFor(() => runs.length === 1, { message: 'm1 ran again after the lost answer of its take-back' })
    await t.bot.idle()
    expect(memory.lostTakeBacks).toBe(0)
    expect(t.provider.texts()).toEqual(['re first'])
    expect(await t.bot.durability!.inbox.get(recordId('m1'))).toMatchObject({ state: 'done', attempts: 2 })
  })
})
