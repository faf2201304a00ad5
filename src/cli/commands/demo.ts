/** `botmesh demo`: the first thing a newcomer runs. */
import type { Command } from 'commander'
import { UsageError } from '../errors.js'
import type { Cli } from '../context.js'
import { examples } from '../options.js'
import { runDemo } from '../../demo/run-demo.js'

export function registerDemo(program: Command, cli: Cli): void {
  program
    .command('demo')
    .description('run a demo bot with a simulated channel on the embedded default (SQLite at ./data/bot.db): chats, a flow, media, retries, dead letters, and a crash and restart of the bot process')
    .option('--crash-after <ms>', 'kill the first bot process after this many ms', '2500')
    .addHelpText('after', examples('botmesh demo', 'botmesh demo --backend sqlite:./tmp/demo.db', 'botmesh dlq list   # afterwards: what the demo left in the dead-letter queues'))
    .action(async (options: { crashAfter: string }) => {
      const config = cli.config()
      const target = config.target
      if (target.kind !== 'sqlite' || target.throwaway) throw new UsageError(`the demo runs on a SQLite file (sqlite:<file>); got ${target.kind}`)
      const crashAfterMs = Number(options.crashAfter)
      if (!Number.isFinite(crashAfterMs) || crashAfterMs < 0) throw new UsageError(`--crash-after takes a number of ms; got ${options.crashAfter}`)
      const summary = await runDemo({ file: target.path, crashAfterMs, print: (line) => cli.out.info(line) })
      if (config.json) cli.out.result(summary, () => [])
    })
}
