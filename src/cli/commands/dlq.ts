/** `botmesh dlq list [--kind inbox|outbox] [--group-by error]` */
import type { Command } from 'commander'
import type { Cli } from '../context.js'
import { examples, filtersFrom, kindsFrom, listOptions, pageFrom, type FilterFlags } from '../options.js'
import { parseChoice } from '../config.js'
import { groupDeadLetters } from '../services/error-groups.js'
import { lanesOf, listRecords } from '../services/records.js'
import { withJournal } from '../session.js'
import { errorGroupsView } from '../views/error-groups.js'
import { printPage } from './journal.js'

export function registerDlq(program: Command, cli: Cli): void {
  const dlq = program
    .command('dlq')
    .description('the dead-letter queues: inbound records and sends that ran out of attempts or failed for good')
    .addHelpText('after', examples('botmesh dlq list', 'botmesh show <id>   # why one is dead', 'botmesh retry --all-dead --dry-run'))
  listOptions(dlq.command('list').description('list dead letters of both queues (inbox first), or of one --kind'), false)
    .option('--kind <kind>', 'inbox or outbox')
    .option('--group-by <what>', 'error: one row per error code and message shape, with counts, first/last seen and a sample')
    .addHelpText(
      'after',
      examples(
        'botmesh dlq list',
        'botmesh dlq list --group-by error',
        'botmesh dlq list --kind outbox --error UNSUPPORTED',
        'botmesh dlq list --since 1h --json',
      ),
    )
    .action(async (options: FilterFlags & { kind?: string; limit?: string; after?: string; groupBy?: string }) => {
      const kinds = kindsFrom(options.kind)
      const grouped = options.groupBy !== undefined && parseChoice(options.groupBy, ['error'] as const, '--group-by') === 'error'
      await withJournal(cli.config(), 'read', async ({ journal, backend }) => {
        const now = await backend.now()
        if (grouped)
          return cli.out.result(await groupDeadLetters(journal, kinds, filtersFrom(options, now)), errorGroupsView(now, kinds.length > 1))
        const page = await listRecords(journal, lanesOf(kinds, ['dead']), filtersFrom(options, now), pageFrom(options))
        printPage(cli, page, now, kinds.length > 1)
      })
    })
}
