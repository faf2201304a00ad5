/** `botmesh discard <key…>` and `botmesh discard --all-dead [filters]` */
import type { Command } from 'commander'
import type { Cli } from '../context.js'
import { confirmChange, finishChange } from '../destructive.js'
import { changeOptions, examples, filterOptions, paceFrom, selectionFrom } from '../options.js'
import { outcomeOf } from '../../operator/bulk.js'
import { applyDiscard, planDiscard } from '../../operator/discard.js'
import { withJournal } from '../../operator/session.js'
import { planView } from '../views/operations.js'
import type { ChangeFlags } from './flags.js'

export function registerDiscard(program: Command, cli: Cli): void {
  changeOptions(filterOptions(program.command('discard').argument('[key...]', 'outbox keys')))
    .description('forget sends: delete their records (a send in flight under a live lease is refused)')
    .option('--all-dead', 'every dead send (with the filters)')
    .addHelpText(
      'after',
      examples(
        'botmesh discard invoice:42 --reason "customer cancelled"',
        'botmesh discard a:1 b:2 --dry-run',
        'botmesh discard --all-dead --error-code UNSUPPORTED_CONTENT --reason "old template"',
        'botmesh discard reminder:7 --yes --json',
      ),
    )
    .action(async (keys: string[], flags: ChangeFlags & { allDead?: boolean }) => {
      await withJournal(cli.config(), flags.dryRun ? 'read' : 'write', async ({ journal, backend }) => {
        const now = await backend.now()
        const plan = await planDiscard(journal, selectionFrom(keys, flags.allDead ? ['dead'] : [], flags, now, 'key'))
        const go = await confirmChange(cli, `discard ${plan.ids.length} send(s)`, plan.ids.length, planView('discard', plan, now), flags)
        const pace = paceFrom(cli, flags, 'discarding', plan.ids.length)
        const items = go ? await applyDiscard(journal, plan, () => backend.now(), pace).finally(pace.finish) : []
        finishChange(cli, outcomeOf('discard', plan, items, { reason: flags.reason, dryRun: flags.dryRun }))
      })
    })
}
