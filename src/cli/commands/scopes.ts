/** `botmesh scopes` */
import type { Command } from 'commander'
import type { Cli } from '../context.js'
import { examples } from '../options.js'
import { listScopes } from '../../operator/scopes.js'
import { withBackend } from '../../operator/session.js'
import { scopesView } from '../views/status.js'

export function registerScopes(program: Command, cli: Cli): void {
  program
    .command('scopes')
    .description("list the scopes (each bot's namespace) the backend holds, with their record counts")
    .addHelpText('after', examples('botmesh scopes', 'botmesh scopes --backend "redis://127.0.0.1:6379?prefix=prod" --json'))
    .action(async () => {
      await withBackend(cli.config(), 'read', async ({ backend, label }) => {
        const scopes = await listScopes(backend)
        cli.out.result({ backend: label, scopes }, (data) => scopesView(data.scopes))
      })
    })
}
