/** `botmesh crash-matrix --backend X [--engine message|steps] [--seed N] [--random N] [--policy skip|resend|both] [--case-seed N | --case NAME]` */
import type { Command } from 'commander'
import type { Cli } from '../context.js'
import { parseChoice, parseCount } from '../config.js'
import { ReportedFailure } from '../errors.js'
import { examples, helpParagraph } from '../options.js'
import { CRASH_CASE_LIMITS } from '../../testing/crash-matrix/index.js'
import { crashCases, runCrashMatrix } from '../../operator/crash-matrix.js'
import { crashMatrixView } from '../views/checks.js'
import { suiteFactory } from './suites.js'

/** The default seed changes daily, so repeated runs explore new random cases; it is printed for replay. */
const todaysSeed = () => Number(new Date().toISOString().slice(0, 10).replaceAll('-', ''))

const AMBIGUOUS_WINDOW_HELP = helpParagraph(`
The ambiguous window: a crash between "about to call the provider" and "sent" being recorded
leaves a send whose outcome nobody knows. Under --policy skip such a send may be lost (never a
duplicate); under resend it may go out again, once per time it was found ambiguous (never lost).
Those losses and duplicates are what the policy allows: the "allowed (ambiguous)" column and the
summary count them, and they do not fail the run. A failure is anything else: a loss under
resend, a duplicate under skip, a loss or duplicate of a send whose key was never ambiguous, a
send nobody asked for, a damaged journal, or a case that did not finish. Exit 1 only on failures.
`)

interface CrashMatrixFlags {
  seed?: string
  random: string
  policy: string
  caseSeed?: string
  match?: string
  case?: string
  caseTimeout: string
  engine: string
}

export function registerCrashMatrix(program: Command, cli: Cli): void {
  program
    .command('crash-matrix')
    .description(
      'crash a bot at every journal write (before and after, under both ambiguity policies, plus seeded random points) on throwaway instances of a backend; ' +
        'losses and duplicates the ambiguity policy allows are reported apart from failures; exit 1 only on a failure',
    )
    .option('--seed <n>', "seeds the cases' timing and draws the random cases (default: today's date)")
    .option('--random <n>', 'random cases to add', '8')
    .option('--policy <policy>', 'onAmbiguous policy: skip, resend or both', 'both')
    .option('--case-seed <n>', 'run only the random case this seed stands for (printed by a failure)')
    .option('--match <text>', 'only cases whose name contains this (e.g. outbox.markSent)')
    .option('--case <name>', 'run only the case of this exact name (a failure prints the command that replays it)')
    .option(
      '--engine <engine>',
      'the engine the bots run on: message, or steps (its steps are crash points; memory, Redis, PostgreSQL)',
      'message',
    )
    .option('--case-timeout <ms>', 'a case that takes longer fails with its seed', String(CRASH_CASE_LIMITS.caseTimeoutMs))
    .addHelpText('after', AMBIGUOUS_WINDOW_HELP)
    .addHelpText(
      'after',
      examples(
        'botmesh crash-matrix --backend sqlite',
        'botmesh crash-matrix --backend redis --policy skip --random 50 --seed 7',
        'botmesh crash-matrix --backend postgres --case-seed 123456789',
        'botmesh crash-matrix --backend memory --engine steps --match steps.',
        "botmesh crash-matrix --backend sqlite --policy skip --seed 42 --case 'before outbox.markSent (skip)'",
      ),
    )
    .action(async (options: CrashMatrixFlags) => {
      const seed = options.seed === undefined ? todaysSeed() : parseCount(options.seed, '--seed', { min: 0 })
      const policy = parseChoice(options.policy, ['skip', 'resend', 'both'] as const, '--policy')
      const caseTimeoutMs = parseCount(options.caseTimeout, '--case-timeout', { min: 1 })
      const engine = parseChoice(options.engine, ['message', 'steps'] as const, '--engine')
      const cases = crashCases({
        engine,
        policies: policy === 'both' ? ['skip', 'resend'] : [policy],
        seed,
        random: parseCount(options.random, '--random', { min: 0, max: 10_000 }),
        ...(options.caseSeed !== undefined && { caseSeed: parseCount(options.caseSeed, '--case-seed', { min: 0 }) }),
        ...(options.match !== undefined && { match: options.match }),
        ...(options.case !== undefined && { case: options.case }),
      })
      const { label, factory } = suiteFactory(cli, 'crash-matrix')
      const kind = cli.config().target.kind
      const progress = cli.out.progress('crash matrix', cases.length)
      const onResult = (result: { name: string }, index: number) => progress.update(index + 1, result.name)
      const report = await runCrashMatrix(label, factory, cases, seed, {
        signal: cli.signal,
        caseTimeoutMs,
        onResult,
        kind,
        engine,
        replay: { backend: label, policy },
      }).finally(() => progress.done())
      cli.out.result(report, crashMatrixView)
      if (report.interrupted) throw new ReportedFailure(`interrupted after ${report.cases} of ${cases.length} crash case(s) on ${label}`)
      if (report.failed > 0) throw new ReportedFailure(`${report.failed} of ${report.cases} crash case(s) failed on ${label}`)
    })
}
