/** `botmesh purge --older-than <duration> [--kind] [--state]` */
import type { Command } from 'commander'
import type { Cli } from '../context.js'
import { parseDuration } from '../config.js'
import { confirmChange } from '../destructive.js'
import { UsageError } from '../../operator/errors.js'
import { examples, kindsFrom, statesFrom } from '../options.js'
import { applyPurge, planPurge, purgeCutoff, purgeLanes } from '../../operator/purge.js'
import { withJournal } from '../../operator/session.js'
import { purgePlanView, sealedKeptView } from '../views/operations.js'

export function registerPurge(program: Command, cli: Cli): void {
  program
    .command('purge')
    .description('delete settled records (done and sent by default) whose last change is older than a duration')
    .option('--older-than <duration>', 'e.g. 30d, 12h; 0s purges every settled record (required)')
    .option('--kind <kind>', 'inbox or outbox (default: both)')
    .option('--state <states>', 'settled states to purge, comma-separated: inbox done,dead; outbox sent,dead,unknown')
    .option('--dry-run', 'count what would be deleted and change nothing')
    .option('-y, --yes', 'do not ask (needed when not on a terminal)')
    .addHelpText(
      'after',
      examples(
        'botmesh purge --older-than 30d --dry-run',
        'botmesh purge --older-than 7d --yes',
        'botmesh purge --older-than 90d --kind outbox --state dead,unknown',
      ),
    )
    .action(async (flags: { olderThan?: string; kind?: string; state?: string; dryRun?: boolean; yes?: boolean }) => {
      if (flags.olderThan === undefined) throw new UsageError('purge needs --older-than <duration> (e.g. 30d)')
      // 0s is a real request (purge every settled record now), not a typo: a test setup, a reset.
      const ageMs = parseDuration(flags.olderThan, '--older-than', { zero: true })
      const lanes = purgeLanes(kindsFrom(flags.kind), statesFrom(flags.state))
      await withJournal(cli.config(), flags.dryRun ? 'read' : 'write', async ({ journal, backend }) => {
        const plan = await planPurge(journal, lanes, purgeCutoff(await backend.now(), ageMs))
        const go = await confirmChange(cli, `purge ${plan.total} record(s)`, plan.total, purgePlanView(plan), flags)
        const progress = cli.out.progress('purging', plan.total)
        const deleted = go ? await applyPurge(journal, plan, (n) => progress.update(n)).finally(() => progress.done()) : []
        cli.out.result({ ...plan, dryRun: flags.dryRun ?? false, deleted }, (r) => [
          {
            text: r.dryRun ? 'dry run: nothing was deleted' : `deleted ${r.deleted.reduce((n, d) => n + d.deleted, 0)} record(s)`,
            tone: 'green' as const,
          },
          ...sealedKeptView(r.sealed),
        ])
      })
    })
}
