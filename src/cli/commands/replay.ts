/** `botmesh replay <id…>` and `botmesh replay --all-dead|--all-failed [filters]` */
import type { Command } from 'commander'
import type { Cli } from '../context.js'
import { confirmChange, finishChange, isHarmless } from '../destructive.js'
import { changeFrom, changeOptions, examples, filterOptions, paceFrom, selectionFrom } from '../options.js'
import { outcomeOf } from '../../operator/bulk.js'
import { applyReplay, planReplay } from '../../operator/replay.js'
import { pickupWarnings } from '../../operator/pickup.js'
import { withJournal } from '../../operator/session.js'
import { planView } from '../views/operations.js'
import type { ChangeFlags } from './flags.js'

export function registerReplay(program: Command, cli: Cli): void {
  changeOptions(filterOptions(program.command('replay').argument('[id...]', 'inbox record ids')))
    .description("re-queue inbound records (dead, failed or done) with a fresh run budget; the running bot's sweeper processes them")
    .option('--all-dead', 'every dead inbound record (with the filters)')
    .option('--all-failed', 'every failed inbound record (with the filters)')
    .addHelpText(
      'after',
      examples(
        'botmesh replay wamid.HBgM --reason "fixed the CRM outage"',
        'botmesh replay --all-dead --since 2h --dry-run',
        'botmesh replay --all-dead --error ECONNREFUSED --rate 20 --yes',
      ),
    )
    .action(async (ids: string[], flags: ChangeFlags & { allDead?: boolean; allFailed?: boolean }) => {
      const states = [...(flags.allDead ? ['dead'] : []), ...(flags.allFailed ? ['failed'] : [])]
      await withJournal(cli.config(), flags.dryRun ? 'read' : 'write', async ({ journal, backend }) => {
        const now = await backend.now()
        const plan = await planReplay(journal, selectionFrom(ids, states, flags, now, 'id'))
        const go = await confirmChange(cli, `replay ${plan.ids.length} inbound record(s)`, plan.ids.length, planView('replay', plan, now), {
          ...flags,
          harmless: isHarmless(ids, states, plan),
        })
        const pace = paceFrom(cli, flags, 'replaying', plan.ids.length)
        const items = go ? await applyReplay(journal, plan, changeFrom(flags, await backend.now()), pace).finally(pace.finish) : []
        const warnings = await pickupWarnings(journal, await backend.now(), items.filter((item) => item.ok).length)
        finishChange(cli, outcomeOf('replay', plan, items, { reason: flags.reason, dryRun: flags.dryRun, warnings }))
      })
    })
}
