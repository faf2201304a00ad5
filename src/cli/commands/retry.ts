/** `botmesh retry <key…>` and `botmesh retry --all-dead|--all-failed|--all-unknown [filters]` */
import type { Command } from 'commander'
import type { Cli } from '../context.js'
import { confirmChange, finishChange, isHarmless } from '../destructive.js'
import { changeFrom, changeOptions, examples, filterOptions, paceFrom, selectionFrom } from '../options.js'
import { outcomeOf } from '../../operator/bulk.js'
import { applyRetry, planRetry } from '../../operator/retry.js'
import { pickupWarnings } from '../../operator/pickup.js'
import { withJournal } from '../../operator/session.js'
import { planView } from '../views/operations.js'
import type { ChangeFlags } from './flags.js'

export function registerRetry(program: Command, cli: Cli): void {
  changeOptions(filterOptions(program.command('retry').argument('[key...]', 'outbox keys')))
    .description("re-queue sends (dead, failed or unknown) with a fresh retry budget; the running bot's sweeper sends them")
    .option('--all-dead', 'every dead send (with the filters)')
    .option('--all-failed', 'every failed send (with the filters)')
    .option('--all-unknown', 'every send whose outcome is unknown after a crash (may send twice)')
    .addHelpText(
      'after',
      examples(
        'botmesh retry invoice:42',
        'botmesh retry --all-dead --error-code RATE_LIMITED --limit 10000 --rate 50 --yes --reason "quota raised"',
        'botmesh retry --all-unknown --chat 5511999 --dry-run',
      ),
    )
    .action(async (keys: string[], flags: ChangeFlags & { allDead?: boolean; allFailed?: boolean; allUnknown?: boolean }) => {
      const states = [...(flags.allDead ? ['dead'] : []), ...(flags.allFailed ? ['failed'] : []), ...(flags.allUnknown ? ['unknown'] : [])]
      await withJournal(cli.config(), flags.dryRun ? 'read' : 'write', async ({ journal, backend }) => {
        const now = await backend.now()
        const plan = await planRetry(journal, selectionFrom(keys, states, flags, now, 'key'))
        // An unknown send may have gone out already: its retry may send it twice, so a script says --yes.
        const harmless = isHarmless(keys, states, plan, ['unknown'])
        const go = await confirmChange(cli, `retry ${plan.ids.length} send(s)`, plan.ids.length, planView('retry', plan, now), {
          ...flags,
          harmless,
        })
        const pace = paceFrom(cli, flags, 'retrying', plan.ids.length)
        const items = go ? await applyRetry(journal, plan, changeFrom(flags, await backend.now()), pace).finally(pace.finish) : []
        const warnings = await pickupWarnings(journal, await backend.now(), items.filter((item) => item.ok).length)
        finishChange(cli, outcomeOf('retry', plan, items, { reason: flags.reason, dryRun: flags.dryRun, warnings }))
      })
    })
}
