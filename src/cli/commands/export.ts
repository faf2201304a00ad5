/** `botmesh export [--out <file>]` */
import type { Command } from 'commander'
import type { Cli } from '../context.js'
import { lineWriter } from '../files.js'
import { examples } from '../options.js'
import { exportRecords } from '../../operator/export.js'
import { chooseScope } from '../../operator/scope.js'
import { withBackend } from '../../operator/session.js'
import { exportSummaryLine, exportView } from '../views/checks.js'

export function registerExport(program: Command, cli: Cli): void {
  program
    .command('export')
    .description('write every inbox and outbox record (state, keys, attempts, tokens) as NDJSON: every scope, or the one of --scope/--bot')
    .option('--out <file>', 'write to this new file instead of stdout')
    .addHelpText(
      'after',
      examples(
        'botmesh export --out backup.ndjson',
        'botmesh export --backend file:./data/durable.json | botmesh import - --backend postgres://postgres@db/bot',
      ),
    )
    .action(async (options: { out?: string }) => {
      const config = cli.config()
      const file = options.out === undefined ? undefined : lineWriter(options.out)
      const progress = cli.out.progress('exporting')
      // The records as stored: sealed content stays sealed in the export.
      await withBackend(config, 'read', async ({ opened: { backend } }) => {
        const scopes =
          config.scope.scope !== undefined || config.scope.bot !== undefined
            ? [await chooseScope(backend, config.scope)]
            : (await backend.scopes()).sort()
        const summary = await exportRecords(
          backend,
          scopes,
          (line) => (file ? file.write(line) : cli.out.raw(line)),
          (n) => progress.update(n),
        ).finally(() => progress.done())
        await file?.close()
        // Without --out the records are the output: the summary is a note on stderr.
        if (file) cli.out.result({ ...summary, out: options.out! }, exportView)
        else cli.out.note(exportSummaryLine({ ...summary, out: 'stdout' }))
      })
    })
}
