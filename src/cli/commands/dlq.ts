/** `botmesh dlq list [--kind inbox|outbox] [--group-by error] [--unknown]` */
import type { Command } from 'commander'
import type { Cli } from '../context.js'
import { examples, filtersFrom, kindsFrom, listOptions, pageFrom, type FilterFlags } from '../options.js'
import { parseChoice } from '../config.js'
import { UsageError } from '../../operator/errors.js'
import { groupDeadLetters } from '../../operator/error-groups.js'
import { lanesOf, listRecords } from '../../operator/records.js'
import { withJournal } from '../../operator/session.js'
import { errorGroupsView } from '../views/error-groups.js'
import { printPage, withUnsearched } from './journal.js'

export function registerDlq(program: Command, cli: Cli): void {
  const dlq = program
    .command('dlq')
    .description('the dead-letter queues: inbound records and sends that ran out of attempts or failed for good')
    .addHelpText('after', examples('botmesh dlq list', 'botmesh show <id>   # why one is dead', 'botmesh retry --all-dead --dry-run'))
  listOptions(dlq.command('list').description('list dead letters of both queues (inbox first), or of one --kind'), false)
    .option('--kind <kind>', 'inbox or outbox')
    .option('--group-by <what>', 'error: one row per error code and message shape, with counts, first/last seen and a sample')
    .option('--unknown', 'the sends whose outcome is unknown after a crash instead (not dead letters: the channel may have delivered them)')
    .addHelpText(
      'after',
      examples(
        'botmesh dlq list',
        'botmesh dlq list --group-by error',
        'botmesh dlq list --kind outbox --error UNSUPPORTED',
        'botmesh dlq list --unknown   # sends a crash left unsettled: check the channel before a retry',
        'botmesh dlq list --since 1h --json',
        'botmesh dlq list --search "order 1042"   # by what the message or the send says',
      ),
    )
    .action(async (options: FilterFlags & { kind?: string; limit?: string; after?: string; groupBy?: string; unknown?: boolean }) => {
      if (options.unknown && (options.groupBy !== undefined || options.kind === 'inbox'))
        throw new UsageError('--unknown lists sends (the outbox) one by one: it takes neither --kind inbox nor --group-by')
      const kinds = options.unknown ? (['outbox'] as const) : kindsFrom(options.kind)
      const grouped = options.groupBy !== undefined && parseChoice(options.groupBy, ['error'] as const, '--group-by') === 'error'
      await withJournal(cli.config(), 'read', async ({ journal, backend, unreadable }) => {
        const now = await backend.now()
        const filters = filtersFrom(options, now)
        if (grouped) return cli.out.result(await groupDeadLetters(journal, kinds, filters), errorGroupsView(now, kinds.length > 1))
        const page = await listRecords(journal, lanesOf(kinds, [options.unknown ? 'unknown' : 'dead']), filters, pageFrom(options))
        printPage(cli, withUnsearched(page, filters, unreadable), now, kinds.length > 1)
        if (options.unknown) {
          if (page.records.length > 0) cli.out.info(UNKNOWN_ADVICE, 'yellow')
          return
        }
        const unknown = kinds.includes('outbox') ? ((await journal.count('outbox')).unknown ?? 0) : 0
        if (unknown > 0) cli.out.info(unknownNote(unknown), 'yellow')
      })
    })
}

/** What to do with a send whose outcome is unknown. */
const UNKNOWN_ADVICE =
  'before a retry, check the channel: botmesh show <key> says which chat and when; retry what never arrived, discard what did'

/** The line under the dead letters that leads to the unknown sends. */
function unknownNote(count: number): string {
  const sends = count === 1 ? "1 send's outcome is" : `${count} sends' outcomes are`
  return `${sends} unknown (a crash while the channel had them; not dead letters, maybe delivered): botmesh dlq list --unknown`
}
