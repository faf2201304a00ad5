/** `botmesh import <file|->` */
import type { Command } from 'commander'
import type { Cli } from '../context.js'
import { ReportedFailure } from '../errors.js'
import { lineSource } from '../files.js'
import { examples } from '../options.js'
import { checkExport, importRecords } from '../../operator/import.js'
import { withBackend } from '../../operator/session.js'
import { importView } from '../views/checks.js'

export function registerImport(program: Command, cli: Cli): void {
  program
    .command('import')
    .argument('<file>', 'an export made by botmesh export, or - for stdin')
    .description(
      "load an export into the backend (into each record's own scope, or all into --scope); refuses if any record exists unless --overwrite",
    )
    .option('--overwrite', 'replace records that exist (each a compare-and-set on the version just read)')
    .option('--dry-run', 'check the file and the target, write nothing')
    .addHelpText(
      'after',
      examples(
        'botmesh import backup.ndjson --backend postgres://postgres@127.0.0.1/bot',
        'botmesh import backup.ndjson --backend sqlite:./data/new.db --scope acme/prod/support/default',
        'botmesh export | botmesh import - --backend redis://127.0.0.1:6379 --overwrite',
      ),
    )
    .action(async (file: string, options: { overwrite?: boolean; dryRun?: boolean }) => {
      const config = cli.config()
      const lines = await lineSource(file, cli.stdin)
      await checkExport(lines, { scope: config.scope.scope })
      const progress = cli.out.progress('importing')
      // Written as exported: sealed content stays sealed (`botmesh rekey` seals clear records); moved by --scope, it is sealed again with --keys.
      await withBackend(config, options.dryRun ? 'read' : 'create', async ({ opened: { backend } }) => {
        const summary = await importRecords(backend, lines, {
          ...options,
          scope: config.scope.scope,
          ...(config.keys && { keys: config.keys }),
          onProgress: (phase, n) => progress.update(n, phase),
        }).finally(() => progress.done())
        cli.out.result(summary, importView)
        if (summary.conflicts > 0)
          throw new ReportedFailure(`${summary.conflicts} record(s) changed in the target during the import and were not overwritten`)
      })
    })
}
