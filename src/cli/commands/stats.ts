/** `botmesh stats [--watch [interval]] [--prometheus] [--retention d]` */
import type { Command } from 'commander'
import type { Cli } from '../context.js'
import { parseCount, parseDuration } from '../config.js'
import { examples } from '../options.js'
import { collectScopes, collectStats, watchStats } from '../../operator/stats.js'
import { withBackend, withJournal } from '../../operator/session.js'
import { prometheusText } from '../views/prometheus.js'
import { statsView } from '../views/status.js'

export function registerStats(program: Command, cli: Cli): void {
  program
    .command('stats')
    .description('counts per state, oldest pending age, dead letters, purge backlog, live instances and their rates')
    .option('--watch [interval]', 'refresh every interval (default 2s) until Ctrl-C; with --json, one JSON line per sample')
    .option('--times <n>', 'with --watch: stop after this many samples')
    .option('--prometheus', 'print the Prometheus text format (every scope unless --scope/--bot), for a textfile collector')
    .option(
      '--retention <duration>',
      "the bots' retention, for the purge backlog (done and sent records older than it); default: the live instances', else 7d",
    )
    .addHelpText(
      'after',
      examples(
        'botmesh stats',
        'botmesh stats --watch 5s',
        'botmesh stats --prometheus > /var/lib/node_exporter/botmesh.prom',
        'botmesh stats --bot support --json',
        'botmesh stats --retention 1d   # the purge backlog against a retention of one day',
      ),
    )
    .action(async (options: { watch?: string | true; times?: string; prometheus?: boolean; retention?: string }) => {
      const config = cli.config()
      const retentionMs = options.retention === undefined ? undefined : parseDuration(options.retention, '--retention', { zero: true })
      if (options.prometheus) {
        return withBackend(config, 'read', async ({ backend }) =>
          cli.out.raw(prometheusText(await collectScopes(backend, config.scope, { retentionMs }))),
        )
      }
      await withJournal(config, 'read', async ({ journal, backend }) => {
        if (!options.watch) return cli.out.result(await collectStats(journal, await backend.now(), undefined, { retentionMs }), statsView)
        const intervalMs = parseDuration(options.watch === true ? '2s' : options.watch, '--watch')
        const times = options.times === undefined ? undefined : parseCount(options.times, '--times')
        await watchStats(
          journal,
          () => backend.now(),
          { intervalMs, times, signal: cli.signal, retentionMs },
          (stats) => {
            if (cli.out.json) return cli.out.jsonLine(stats)
            cli.out.clear()
            cli.out.show(statsView(stats))
          },
        )
      })
    })
}
