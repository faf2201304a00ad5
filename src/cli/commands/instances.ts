/** `botmesh instances` */
import type { Command } from 'commander'
import type { Cli } from '../context.js'
import { examples } from '../options.js'
import { listInstances } from '../../operator/instances.js'
import { withJournal } from '../../operator/session.js'
import { instancesView } from '../views/status.js'

export function registerInstances(program: Command, cli: Cli): void {
  program
    .command('instances')
    .description('live replicas of the scope, from their heartbeats: host, pid, uptime, last beat and sweep, metrics')
    .option('--all', 'also those whose heartbeat expired')
    .addHelpText('after', examples('botmesh instances', 'botmesh instances --all --json'))
    .action(async (options: { all?: boolean }) => {
      await withJournal(cli.config(), 'read', async ({ journal, backend }) => {
        const now = await backend.now()
        const instances = await listInstances(journal, now, { all: options.all })
        cli.out.result({ instances }, (data) => instancesView(now)(data.instances))
      })
    })
}
