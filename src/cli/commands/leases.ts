/** `botmesh leases` */
import type { Command } from 'commander'
import type { Cli } from '../context.js'
import { parseCount } from '../config.js'
import { examples } from '../options.js'
import { listLeases } from '../../operator/instances.js'
import { withJournal } from '../../operator/session.js'
import { leasesView } from '../views/status.js'

export function registerLeases(program: Command, cli: Cli): void {
  program
    .command('leases')
    .description('active leases: the records a replica is working on, its owner, fencing token and expiry')
    .option('--limit <n>', 'show at most this many', '100')
    .addHelpText('after', examples('botmesh leases', 'botmesh leases --bot support --json'))
    .action(async (options: { limit: string }) => {
      const limit = parseCount(options.limit, '--limit', { max: 10_000 })
      await withJournal(cli.config(), 'read', async ({ journal, backend }) => {
        const leases = await listLeases(journal, await backend.now(), limit)
        cli.out.result({ leases }, (data) => leasesView(data.leases))
      })
    })
}
