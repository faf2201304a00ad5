/** `botmesh rekey [--dry-run] [--yes]`: every record sealed again under the current encryption key. */
import type { Command } from 'commander'
import type { Cli } from '../context.js'
import { confirmChange, type ConfirmFlags } from '../destructive.js'
import { UsageError } from '../../operator/errors.js'
import { ReportedFailure } from '../errors.js'
import { examples } from '../options.js'
import { rekeyJournal } from '../../operator/rekey.js'
import { chooseScope } from '../../operator/scope.js'
import { withBackend } from '../../operator/session.js'
import { rekeyPlanView, rekeyView } from '../views/rekey.js'

export function registerRekey(program: Command, cli: Cli): void {
  program
    .command('rekey')
    .description(
      'seal every record again under the current key of --keys (records under an older key or in clear), so an older key can be retired; every scope, or the one of --scope/--bot',
    )
    .option('--dry-run', 'count what would be rewritten and change nothing')
    .option('-y, --yes', 'do not ask (needed when not on a terminal)')
    .addHelpText(
      'after',
      examples(
        'botmesh rekey --keys ./keys.json --dry-run',
        'BOTMESH_ENCRYPTION_KEYS="$(cat keys.json)" botmesh rekey --backend postgres://db/bot --yes',
      ),
    )
    .action(async (flags: ConfirmFlags) => {
      const config = cli.config()
      const keys = config.keys
      if (!keys)
        throw new UsageError('rekey needs the keys: --keys <file> or BOTMESH_ENCRYPTION_KEYS, with the key to rewrite under as "current"')
      await withBackend(config, flags.dryRun ? 'read' : 'write', async ({ opened: { backend } }) => {
        const scopes =
          config.scope.scope !== undefined || config.scope.bot !== undefined
            ? [await chooseScope(backend, config.scope)]
            : (await backend.scopes()).sort()
        const counting = cli.out.progress('reading')
        const plan = await rekeyJournal(backend, keys, scopes, { dryRun: true, onProgress: (n) => counting.update(n) }).finally(() =>
          counting.done(),
        )
        const go = await confirmChange(
          cli,
          `rewrite ${plan.rewritten} record(s) under key ${plan.current}`,
          plan.rewritten,
          rekeyPlanView(plan),
          flags,
        )
        const started = Date.now()
        const progress = cli.out.progress('rewriting', plan.scanned)
        const summary = go
          ? await rekeyJournal(backend, keys, scopes, { onProgress: (n) => progress.update(n), signal: cli.signal }).finally(() =>
              progress.done(),
            )
          : plan
        cli.out.result({ ...summary, dryRun: flags.dryRun ?? false, elapsedMs: Date.now() - started }, rekeyView)
        if (summary.conflicts > 0)
          throw new ReportedFailure(`${summary.conflicts} record(s) changed while being rewritten; run rekey again`)
        if (cli.signal.aborted) throw new ReportedFailure(`interrupted after ${summary.scanned} of ${plan.scanned} record(s)`)
      })
    })
}
