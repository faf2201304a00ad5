/** `botmesh compact` */
import type { Command } from 'commander'
import type { Cli } from '../context.js'
import { examples } from '../options.js'
import { assertCompactable, compact } from '../../operator/compact.js'
import { withBackend } from '../../operator/session.js'
import { compactView } from '../views/checks.js'

export function registerCompact(program: Command, cli: Cli): void {
  program
    .command('compact')
    .description("fold a file journal's log into its snapshot, or checkpoint a SQLite WAL into the database file")
    .addHelpText(
      'after',
      examples('botmesh compact --backend file:./data/durable.json', 'botmesh compact --backend sqlite:./data/bot.db --json'),
    )
    .action(async () => {
      assertCompactable(cli.config().target)
      const progress = cli.out.progress('compacting')
      await withBackend(cli.config(), 'write', async ({ opened }) => {
        const outcome = await compact(opened, (phase) => progress.update(0, phase)).finally(() => progress.done())
        cli.out.result(outcome, compactView)
      })
    })
}
