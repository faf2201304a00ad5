/** `botmesh bench --backend X [--messages N] [--concurrency C]` */
import type { Command } from 'commander'
import type { Cli } from '../context.js'
import { parseCount } from '../config.js'
import { examples } from '../options.js'
import { runBench } from '../services/bench.js'
import { benchView } from '../views/checks.js'
import { suiteFactory } from './suites.js'

export function registerBench(program: Command, cli: Cli): void {
  program
    .command('bench')
    .description('messages/s through the full journal path (one reply each), p50/p99 latency and backend round trips per message, against the same run without durability')
    .option('--messages <n>', 'messages to send', '2000')
    .option('--concurrency <n>', 'clients sending at once, each to its own chat', '8')
    .addHelpText('after', examples('botmesh bench --backend sqlite', 'botmesh bench --backend redis --messages 20000 --concurrency 32', 'botmesh bench --backend postgres://postgres@127.0.0.1/test --json'))
    .action(async (options: { messages: string; concurrency: string }) => {
      const messages = parseCount(options.messages, '--messages', { max: 10_000_000 })
      const concurrency = parseCount(options.concurrency, '--concurrency', { max: 10_000 })
      const { label, factory } = suiteFactory(cli, 'bench')
      const progress = cli.out.progress('bench', messages)
      const report = await runBench(label, factory, { messages, concurrency, onProgress: (done, _total, phase) => progress.update(done, phase) }).finally(() => progress.done())
      cli.out.result(report, benchView)
    })
}
