/** `botmesh conformance --backend X` */
import type { Command } from 'commander'
import type { Cli } from '../context.js'
import { ReportedFailure } from '../errors.js'
import { examples } from '../options.js'
import { runConformance } from '../../operator/conformance.js'
import { conformanceView } from '../views/checks.js'
import { suiteFactory } from './suites.js'

export function registerConformance(program: Command, cli: Cli): void {
  program
    .command('conformance')
    .description("run the library's conformance suite against a backend, each case on a throwaway instance; exit 1 on any failure")
    .option('--match <text>', 'only cases whose name contains this')
    .addHelpText(
      'after',
      examples(
        'botmesh conformance --backend sqlite',
        'botmesh conformance --backend "redis://10.0.0.5:6379?prefix=staging" --json',
        'botmesh conformance --backend postgres://postgres@127.0.0.1:5432/test',
      ),
    )
    .action(async (options: { match?: string }) => {
      const { label, factory } = suiteFactory(cli, 'conformance')
      const progress = cli.out.progress('conformance')
      const report = await runConformance(label, factory, {
        match: options.match,
        onResult: (result, index, total) => progress.update(index + 1, `of ${total}: ${result.name}`),
      }).finally(() => progress.done())
      cli.out.result(report, conformanceView)
      if (report.failed > 0) throw new ReportedFailure(`${report.failed} of ${report.cases} conformance case(s) failed on ${label}`)
    })
}
