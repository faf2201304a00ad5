/** `botmesh verify [--salvage <out>]` */
import type { Command } from 'commander'
import type { Cli } from '../context.js'
import { ReportedFailure } from '../errors.js'
import { examples } from '../options.js'
import { isJournalFile, salvage, verifyPath, verifyRecords } from '../../operator/verify.js'
import { withBackend } from '../../operator/session.js'
import { salvageView, verifyView } from '../views/checks.js'

export function registerVerify(program: Command, cli: Cli): void {
  program
    .command('verify')
    .description('read a journal and report damage (file, line, byte offset), changing nothing; exit 1 when damage is found')
    .option(
      '--salvage <out>',
      'file journals: write what is readable up to the damage into a new journal file, leaving the original untouched',
    )
    .addHelpText(
      'after',
      examples(
        'botmesh verify --backend file:./data/durable.json',
        'botmesh verify --backend file:./data/durable.json --salvage ./data/rescued.json',
        'botmesh verify --backend sqlite:./data/bot.db --json',
      ),
    )
    .action(async (options: { salvage?: string }) => {
      const { target } = cli.config()
      if (options.salvage !== undefined) return cli.out.result(await salvage(target, options.salvage), salvageView)
      const outcome = isJournalFile(target)
        ? await verifyPath(target)
        : await withBackend(cli.config(), 'read', ({ backend, label }) => verifyRecords(backend, label))
      cli.out.result(outcome, verifyView)
      if (!outcome.ok) throw new ReportedFailure(`${outcome.problems.length} problem(s) found in ${outcome.backend}`)
    })
}
