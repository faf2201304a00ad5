/**
 * How destructive and bulk commands ask before they change anything: show what they will touch (a
 * count and a sample), stop there on --dry-run, go ahead with --yes, ask on a terminal, and refuse
 * off one. A harmless change (one named record re-queued: nothing is lost or sent twice) goes ahead
 * without asking, on a terminal or not, as the README promises. Then report the outcome, failing
 * the run when any record could not be changed.
 */
import { BotmeshError, ERROR_CODES } from '../core/errors/errors.js'
import type { Cli } from './context.js'
import { UsageError } from '../operator/errors.js'
import { ReportedFailure } from './errors.js'
import type { Block } from './output.js'
import type { BulkOutcome, Plan } from '../operator/bulk.js'
import { outcomeView } from './views/operations.js'

/** Flags that decide whether to go ahead. */
export interface ConfirmFlags {
  dryRun?: boolean
  yes?: boolean
}

/** Whether a change needs no confirmation: one record named by the operator, re-queued, that cannot go out twice. */
export function isHarmless(named: readonly string[], bulkStates: readonly string[], plan: Plan, risky: readonly string[] = []): boolean {
  return named.length === 1 && bulkStates.length === 0 && plan.sample.every((record) => !risky.includes(record.state))
}

/** Shows the plan and resolves whether to apply it. */
export async function confirmChange(
  cli: Cli,
  question: string,
  count: number,
  plan: Block[],
  flags: ConfirmFlags & { harmless?: boolean },
): Promise<boolean> {
  if (count === 0) {
    cli.out.show([{ text: 'nothing matches: nothing to change', tone: 'dim' }])
    return false
  }
  cli.out.show(plan)
  if (flags.dryRun) return false
  if (flags.yes || flags.harmless) return true
  if (!cli.out.canPrompt) {
    throw new UsageError(
      `${question} refused: not a terminal, so nothing was changed; pass --yes to go ahead, or --dry-run to only look`,
      ERROR_CODES.CONFIRMATION_REQUIRED,
    )
  }
  if (await cli.out.confirm(`${question}?`)) return true
  throw new BotmeshError(ERROR_CODES.CANCELLED, 'cancelled: nothing was changed')
}

/** Prints the outcome; a record that could not be changed fails the run (exit 1). */
export function finishChange(cli: Cli, outcome: BulkOutcome): void {
  cli.out.result(outcome, outcomeView)
  // On stderr, so a script reading the result is not disturbed; --json carries them in `warnings`.
  for (const warning of outcome.warnings) cli.out.note(`warning: ${warning}`, 'yellow')
  if (outcome.failed > 0) throw new ReportedFailure(`${outcome.failed} of ${outcome.attempted} record(s) could not be changed (see above)`)
  if (cli.signal.aborted) throw new ReportedFailure(`interrupted after ${outcome.attempted} of ${outcome.matched} record(s)`)
}
