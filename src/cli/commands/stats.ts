/** `botmesh stats [--watch [interval]] [--prometheus]` */
import type { Command } from 'commander'
import type { Cli } from '../context.js'
import { parseCount, parseDuration } from '../config.js'
import { examples } from '../options.js'
import { collectScopes, collectStats, watchStats } from '../services/stats.js'
import { withBackend, withJournal } from '../session.js'
import { prometheusText } from '../views/prometheus.js'
import { failureRateView } from '../views/failure-rate.js'
import { statsView } from '../views/status.js'
import type { Stats } from '../services/stats.js'

const statsWithRates = (stats: Stats) => [...statsView(stats), ...failureRateView(stats)]

export function registerStats(program: Command, cli: Cli): void {
  program
    .command('stats')
    .description('counts per state, oldest pending age, dead letters, live instances and their rates')
    .option('--watch [interval]', 'refresh every interval (default 2s) until Ctrl-C; with --json, one JSON line per sample')
    .option('--times <n>', 'with --watch: stop after this many samples')
    .option('--prometheus', 'print the Prometheus text format (every scope unless --scope/--bot), for a textfile collector')
    .addHelpText(
      'after',
      examples(
        'botmesh stats',
        'botmesh stats --watch 5s',
        'botmesh stats --prometheus > /var/lib/node_exporter/botmesh.prom',
        'botmesh stats --bot support --json',
      ),
    )
    .action(async (options: { watch?: string | true; times?: string; prometheus?: boolean }) => {
      const config = cli.config()
      if (options.prometheus) {
        return withBackend(config, 'read', async ({ backend }) => cli.out.raw(prometheusText(await collectScopes(backend, config.scope))))
      }
      await withJournal(config, 'read', async ({ journal, backend }) => {
        if (!options.watch) return cli.out.result(await collectStats(journal, await backend.now()), statsWithRates)
        const intervalMs = parseDuration(options.watch === true ? '2s' : options.watch, '--watch')
        const times = options.times === undefined ? undefined : parseCount(options.times, '--times')
        await watchStats(
          journal,
          () => backend.now(),
          { intervalMs, times, signal: cli.signal },
          (stats) => {
            if (cli.out.json) return cli.out.jsonLine(stats)
            cli.out.clear()
            cli.out.show(statsWithRates(stats))
          },
        )
      })
    })
}
