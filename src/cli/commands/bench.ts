/**
 * `botmesh bench --backend X [--messages N] [--concurrency C] [--encrypt] [--wait-replicas N]`. The peers, the stores'
 * raw ceilings and the soak are the repository's (`npm run bench`, `npm run soak`: bench/), not the package's.
 */
import type { Command } from 'commander'
import type { Cli } from '../context.js'
import { parseCount } from '../config.js'
import { UsageError } from '../../operator/errors.js'
import { examples } from '../options.js'
import { runBench } from '../services/bench.js'
import { benchView } from '../views/checks.js'
import { suiteFactory } from './suites.js'

/** The most messages one run may send. */
const MESSAGES_MAX = 10_000_000
/** The most clients at once. */
const CONCURRENCY_MAX = 10_000
/** The most replicas `--wait-replicas` may wait for. */
const WAIT_REPLICAS_MAX = 100

/** The flags of the benchmark. */
interface BenchFlags {
  messages: string
  concurrency: string
  encrypt?: boolean
  waitReplicas?: string
}

export function registerBench(program: Command, cli: Cli): void {
  program
    .command('bench')
    .description(
      "messages/s through the full journal path (one reply each), p50/p99 latency, backend round trips and records written per message, and what a message costs this process (CPU µs, KB allocated, GC pause, promises), against the same run without durability (the peers and the stores' raw ceilings: `npm run bench` in the repository)",
    )
    .option('--messages <n>', 'messages to send', '2000')
    .option('--concurrency <n>', 'clients sending at once, each to its own chat', '8')
    .option(
      '--encrypt',
      'also run the durable path with content sealed (durability.encryption, a key made for the run): what encryption costs',
    )
    .option(
      '--wait-replicas <n>',
      'Redis only: a journal write is done once n replicas have it (waitReplicas), so --backend names a primary with replicas: what that costs',
    )
    .addHelpText(
      'after',
      examples(
        'botmesh bench --backend sqlite',
        'botmesh bench --backend redis --messages 20000 --concurrency 32',
        'botmesh bench --backend postgres://postgres@127.0.0.1/test --messages 3000 --concurrency 8 --json   # slowdown: time per message ÷ no durability',
        'botmesh bench --backend redis --encrypt   # a third run with content sealed: its time and CPU per message over the unsealed run',
        'botmesh bench --backend redis://127.0.0.1:6380 --concurrency 50 --wait-replicas 1   # each group commit waits for a replica',
      ),
    )
    .action((options: BenchFlags) => benchAction(cli, options))
}

/** The durable run (with --wait-replicas, its Redis writes waiting for replicas), with --encrypt the sealed one, and the baseline. */
async function benchAction(cli: Cli, options: BenchFlags): Promise<void> {
  const messages = parseCount(options.messages, '--messages', { max: MESSAGES_MAX })
  const concurrency = parseCount(options.concurrency, '--concurrency', { max: CONCURRENCY_MAX })
  const config = cli.config()
  let waitReplicas: number | undefined
  if (options.waitReplicas !== undefined) {
    if (config.target.kind !== 'redis') throw new UsageError(`--wait-replicas is Redis's waitReplicas; ${config.target.label} is not Redis`)
    waitReplicas = parseCount(options.waitReplicas, '--wait-replicas', { max: WAIT_REPLICAS_MAX })
  }
  const { label, factory } = suiteFactory(cli, 'bench', { waitReplicas })
  const progress = cli.out.progress('bench', messages)
  const described = waitReplicas === undefined ? label : `${label}, waitReplicas ${waitReplicas}`
  const report = await runBench(described, factory, {
    messages,
    concurrency,
    sealed: options.encrypt === true,
    onProgress: (done, _total, phase) => progress.update(done, phase),
  }).finally(() => progress.done())
  cli.out.result(report, benchView)
}
