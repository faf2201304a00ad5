/**
 * A crash loop on the steps engine (src/core/durability/steps/alone-runs.ts): a message that
 * crashes the process on every run is dead-lettered after `inbox.maxAttempts` runs, and a message
 * that was running beside it at each crash is not: its last run, after runs that never ended, runs
 * alone, new messages held meanwhile. A run of the bot is "crashed" by abandoning it with its
 * handlers hung (long leases, no sweeps: as quiet as a dead process); the next run of the same
 * instance takes back what it left.
 */
import { describe, expect, it } from 'vitest'
import { onEngine } from '../../../test-utils/engine.js'
import { MemoryDurability } from '../../../src/core/durability/memory/memory-durability.js'
import { TEXT } from '../../../src/core/bot/matchers.js'
import { deferred, waitFor } from '../../../test-utils/wait.js'
import { fast, recordId, useBots } from '../helpers.js'

const bots = useBots()
onEngine('steps')

/** A run of instance i1 that never sweeps again after its start, as a process about to die. */
const quiet = (backend: MemoryDurability) => fast({ backend, instanceId: 'i1', pollMs: '1h', inbox: { leaseMs: '1h', maxAttempts: 3 } })

describe('a crash loop on the steps engine', () => {
  it('dead-letters the message that crashes every run, and the one running beside it takes its last run alone and is answered', async () => {
    const backend = new MemoryDurability()
    const hang = new Promise<never>(() => {})
    /** Handler starts per run of the bot, in order: `run/text`. */
    const started: string[] = []
    const bot = (run: string, handle: (text: string) => Promise<void> | undefined) =>
      bots.start({
        durability: run === 'D' ? fast({ backend, instanceId: 'i1', inbox: { maxAttempts: 3 } }) : quiet(backend),
        untapped: true,
        setup: (b) =>
          b.when(TEXT, async (ctx) => {
            const text = ctx.message.text
            started.push(`${run}/${text}`)
            await handle(text)
            await ctx.reply(`re:${text}`)
          }),
      })
    const startedIn = (run: string, text: string) => started.includes(`${run}/${text}`)

    // Runs A and B: 'boom' crashes the process while 'slow' (another chat) is still running.
    for (const run of ['A', 'B']) {
      const t = await bot(run, () => hang)
      if (run === 'A') {
        await t.provider.receive({ id: 'p', chatId: 'c1', text: 'boom' })
        await t.provider.receive({ id: 's', chatId: 'c2', text: 'slow' })
      }
      await waitFor(() => startedIn(run, 'boom') && startedIn(run, 'slow'), { message: `run ${run} started both` })
      bots.abandon(t)
    }

    // Run C: both would take their last run now; each runs alone, and a new message waits.
    const slowDone = deferred()
    const c = await bot('C', (text) => (text === 'slow' ? slowDone.promise : hang))
    await c.provider.receive({ id: 'n', chatId: 'c3', text: 'new' })
    await waitFor(() => startedIn('C', 'boom') || startedIn('C', 'slow'), { message: 'run C started a last run' })
    if (startedIn('C', 'slow')) {
      expect(startedIn('C', 'boom')).toBe(false)
      slowDone.resolve()
      await waitFor(() => startedIn('C', 'boom'), { message: "'boom' ran alone after 'slow'" })
    }
    expect(startedIn('C', 'new')).toBe(false)
    expect(started.filter((entry) => entry.startsWith('C/')).at(-1)).toBe('C/boom')
    expect(await c.bot.durability!.inbox.get(recordId('n', 'c3'))).toMatchObject({ state: 'processing', attempts: 1 })
    bots.abandon(c)

    // Run D: 'boom' had its runs; 'slow' and 'new' are answered.
    const d = await bot('D', () => undefined)
    await d.bot.idle()
    const inbox = d.bot.durability!.inbox
    expect(await inbox.get(recordId('p', 'c1'))).toMatchObject({ state: 'dead', attempts: 3 })
    expect(await inbox.get(recordId('s', 'c2'))).toMatchObject({ state: 'done' })
    expect(await inbox.get(recordId('n', 'c3'))).toMatchObject({ state: 'done', attempts: 2 })
    expect([...c.provider.texts('c2'), ...d.provider.texts('c2')]).toEqual(['re:slow'])
    expect(d.provider.texts('c3')).toEqual(['re:new'])
  })

  it('lets the messages it held run once a last run going alone has outlasted a lease (its handler hangs), with a warning', async () => {
    const backend = new MemoryDurability()
    const hang = new Promise<never>(() => {})
    const started: string[] = []
    const bot = (run: string, durability: ReturnType<typeof quiet>, handle: (text: string) => Promise<void> | undefined) =>
      bots.start({
        durability,
        untapped: true,
        setup: (b) =>
          b.when(TEXT, async (ctx) => {
            started.push(`${run}/${ctx.message.text}`)
            await handle(ctx.message.text)
            await ctx.reply(`re:${ctx.message.text}`)
          }),
      })
    for (const run of ['A', 'B']) {
      const t = await bot(run, quiet(backend), () => hang)
      if (run === 'A') await t.provider.receive({ id: 'p', chatId: 'c1', text: 'boom' })
      await waitFor(() => started.includes(`${run}/boom`), { message: `run ${run} started 'boom'` })
      bots.abandon(t)
    }
    // Run C: 'boom' takes its last run alone and hangs; after a lease (1 s here) 'new' runs beside it.
    const c = await bot('C', fast({ backend, instanceId: 'i1', inbox: { leaseMs: '1s', maxAttempts: 3 } }), (text) =>
      text === 'boom' ? hang : undefined,
    )
    await waitFor(() => started.includes('C/boom'), { message: "run C started 'boom' alone" })
    await c.provider.receive({ id: 'n', chatId: 'c3', text: 'new' })
    await waitFor(() => c.provider.texts('c3').length === 1, { timeoutMs: 60_000, message: "'new' answered beside the hung last run" })
    expect(c.warnings.some((warning) => warning.includes('has run alone for a lease'))).toBe(true)
    bots.abandon(c)
  })
})
