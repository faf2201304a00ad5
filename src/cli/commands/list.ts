/** `botmesh list [--state failed] [--kind inbox|outbox]`: the retry queue, or any states of both journals. */
import type { Command } from 'commander'
import type { Cli } from '../context.js'
import { examples, filtersFrom, kindsFrom, listOptions, pageFrom, statesFrom, type FilterFlags } from '../options.js'
import { lanesOf, listRecords, RETRY_QUEUE_STATES } from '../../operator/records.js'
import { withJournal } from '../../operator/session.js'
import { retryQueueView } from '../views/retry-queue.js'
import { withUnsearched } from './journal.js'

export function registerList(program: Command, cli: Cli): void {
  listOptions(
    program
      .command('list')
      .description(
        'the retry queue: records of both journals waiting for their next attempt (backing off, or due and overdue when no bot runs), with when each is tried (or --state …)',
      ),
    true,
  )
    .option('--kind <kind>', 'inbox or outbox')
    .addHelpText(
      'after',
      examples(
        'botmesh list',
        'botmesh list --state failed,pending --kind outbox',
        'botmesh list --state failed --error-code RATE_LIMITED --json',
        'botmesh list --search "invoice" --kind outbox',
      ),
    )
    .action(async (options: FilterFlags & { state?: string; kind?: string; limit?: string; after?: string }) => {
      const lanes = lanesOf(kindsFrom(options.kind), statesFrom(options.state) ?? RETRY_QUEUE_STATES)
      await withJournal(cli.config(), 'read', async ({ journal, backend, unreadable }) => {
        const now = await backend.now()
        const filters = filtersFrom(options, now)
        cli.out.result(
          withUnsearched(await listRecords(journal, lanes, filters, pageFrom(options)), filters, unreadable),
          retryQueueView(now),
        )
      })
    })
}
