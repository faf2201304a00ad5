/** `botmesh dashboard [--refresh 1s]`: the live terminal view (src/tui), on the global --backend and --scope/--bot. */
import type { Command } from 'commander'
import type { Cli } from '../context.js'
import { parseDuration } from '../config.js'
import { examples } from '../options.js'

export function registerDashboard(program: Command, cli: Cli): void {
  program
    .command('dashboard')
    .description(
      'a live terminal view of a scope: counts and rates, instances, leases, dead letters; replay, retry and discard from the keyboard',
    )
    .option('--refresh <duration>', 'how often to read the backend', '1s')
    .addHelpText(
      'after',
      examples('botmesh dashboard', 'botmesh dashboard --backend redis://127.0.0.1:6379?prefix=bm --bot support --refresh 2s'),
    )
    .action(async (options: { refresh: string }) => {
      const config = cli.config()
      const refreshMs = parseDuration(options.refresh, '--refresh')
      // Ink and React load only for this command.
      const { runDashboard } = await import('../../tui/index.js')
      await runDashboard({
        backendUrl: config.backend,
        scope: config.scope.scope,
        bot: config.scope.bot,
        refreshMs,
        open: config.open,
        keys: config.keys,
        env: cli.env,
        signal: cli.signal,
      })
    })
}
