/** `botmesh bench --backend X [--messages N] [--concurrency C] [--ceiling N]`, or the soak: `--duration D --rate N` */
import type { Command } from 'commander'
import { SOAK_INTERVAL_DEFAULT, SOAK_ONLY_FLAGS, SOAK_RETENTION_DEFAULT, soakAction, type SoakFlags } from '../../../bench/soak/main.js'
import type { Cli } from '../context.js'
import { parseCount } from '../config.js'
import { UsageError } from '../errors.js'
import { examples } from '../options.js'
import { ceilingPlace, runBench } from '../services/bench.js'
import { benchView } from '../views/checks.js'
import { suiteFactory } from './suites.js'

/** The most messages (and ceiling operations) one run may send. */
const MESSAGES_MAX = 10_000_000
/** The most clients at once. */
const CONCURRENCY_MAX = 10_000

/** The flags of the closed-loop benchmark. */
interface ClosedLoopFlags {
  messages: string
  concurrency: string
  ceiling?: string
  encrypt?: boolean
}

export function registerBench(program: Command, cli: Cli): void {
  program
    .command('bench')
    .description(
      "messages/s through the full journal path (one reply each), p50/p99 latency, backend round trips and records written per message, and what a message costs this process (CPU µs, KB allocated, GC pause, promises), against the same run without durability and the raw store's ceiling (what the store does alone: append + fsync, a five-write SQLite transaction, single-INSERT transactions, scripted Redis calls)",
    )
    .option('--messages <n>', 'messages to send', '2000')
    .option(
      '--concurrency <n>',
      'clients sending at once, each to its own chat (and clients of the raw ceiling on PostgreSQL and Redis); with --duration, the chats the messages go to in turn',
      '8',
    )
    .option('--ceiling <n>', "operations the raw store's ceiling runs, 0 for none (default: as many as --messages)")
    .option(
      '--encrypt',
      'also run the durable path with content sealed (durability.encryption, a key made for the run): what encryption costs',
    )
    .option(
      '--duration <duration>',
      'soak instead: send a steady --rate for this long with a short --retention, print a sample every --interval (msg/s, p50/p99, journal records, purge backlog, RSS), then whether records and RSS stayed flat over the last half',
    )
    .option('--rate <n>', 'with --duration: messages per second to hold')
    .option('--retention <duration>', `with --duration: the bot's retention (default ${SOAK_RETENTION_DEFAULT})`)
    .option(
      '--interval <duration>',
      `with --duration: how often a sample is printed (default ${SOAK_INTERVAL_DEFAULT}); --json prints one JSON line each, then the summary's`,
    )
    .addHelpText(
      'after',
      examples(
        'botmesh bench --backend sqlite',
        'botmesh bench --backend redis --messages 20000 --concurrency 32',
        'botmesh bench --backend postgres://postgres@127.0.0.1/test --messages 3000 --concurrency 8 --json   # ceilingRatio: msg/s ÷ single-INSERT txn/s',
        'botmesh bench --backend file --ceiling 0',
        'botmesh bench --backend redis --encrypt   # a third run with content sealed: its time and CPU per message over the unsealed run',
        'botmesh bench --backend sqlite --duration 10m --rate 400   # soak: is the journal flat at 400 msg/s with a 1m retention?',
        'botmesh bench --backend redis --duration 10m --rate 800 --retention 1m --interval 30s --json > soak.ndjson',
      ),
    )
    .action(async (options: ClosedLoopFlags & Partial<SoakFlags>, command: Command) => {
      if (options.duration !== undefined) {
        const closedLoopFlags = ['messages', 'ceiling', 'encrypt'].filter((flag) => command.getOptionValueSource(flag) === 'cli')
        if (closedLoopFlags.length > 0) throw new UsageError(`--duration (the soak) takes no --${closedLoopFlags.join(' or --')}`)
        return soakAction(cli, { ...options, duration: options.duration }, CONCURRENCY_MAX)
      }
      const soakOnly = SOAK_ONLY_FLAGS.filter((flag) => options[flag] !== undefined)
      if (soakOnly.length > 0)
        throw new UsageError(`--${soakOnly.join(', --')} ${soakOnly.length === 1 ? 'goes' : 'go'} only with --duration (the soak)`)
      await closedLoopAction(cli, options)
    })
}

/** The closed-loop benchmark (not the soak): the durable run, with --encrypt the sealed one, the baseline and the ceiling. */
async function closedLoopAction(cli: Cli, options: ClosedLoopFlags): Promise<void> {
  const messages = parseCount(options.messages, '--messages', { max: MESSAGES_MAX })
  const concurrency = parseCount(options.concurrency, '--concurrency', { max: CONCURRENCY_MAX })
  const ceilingOperations =
    options.ceiling === undefined ? messages : parseCount(options.ceiling, '--ceiling', { min: 0, max: MESSAGES_MAX })
  const { label, factory } = suiteFactory(cli, 'bench')
  const config = cli.config()
  const ceiling =
    ceilingOperations === 0
      ? undefined
      : {
          place: ceilingPlace(config.target, config.open),
          operations: ceilingOperations,
          connectTimeoutMs: config.open.connectTimeoutMs,
        }
  const progress = cli.out.progress('bench', messages)
  const report = await runBench(label, factory, {
    messages,
    concurrency,
    ceiling,
    sealed: options.encrypt === true,
    onProgress: (done, _total, phase) => progress.update(done, phase),
  }).finally(() => progress.done())
  cli.out.result(report, benchView)
}
