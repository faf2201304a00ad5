/**
 * `npm run bench` options: what to run, where, and the limits of a run, each with its default.
 * Errors carry a stable `code`, as every botmesh error does.
 */
import { parseArgs } from 'node:util'

/** The backends `npm run bench` knows, in the order it runs them. */
export const BACKENDS = ['memory', 'file', 'sqlite', 'redis', 'postgres', 'events']

export const DEFAULTS = {
  /** Messages each botmesh run sends (and operations each raw ceiling and jobs each queue peer runs). */
  messages: 3000,
  concurrency: [1, 8, 50],
  backends: ['memory', 'file', 'sqlite', 'redis', 'postgres'],
  redisUrl: 'redis://127.0.0.1:6379',
  postgresUrl: 'postgres://postgres@127.0.0.1:5432/test',
  /** A botmesh run (one backend, one concurrency) or a queue peer's run is stopped after this long. */
  runTimeoutSeconds: 600,
  /** Times each backend and concurrency is run (botmesh, then its peer); figures are the median round. */
  rounds: 1,
}

/** The most messages and clients a run may ask for (as `botmesh bench` allows). */
const LIMITS = { messages: 10_000_000, concurrency: 10_000, runTimeoutSeconds: 86_400, rounds: 99 }

export const HELP = `npm run bench [-- options]

botmesh's messages/s, p50/p99 latency, round trips and writes per message, and what a message
costs the process (CPU µs, KB allocated, GC pause, promises; with durability and without) on each
backend at each concurrency (\`botmesh bench\` in a child process per run), beside the peers measured in the
same run on the same machine: the queues a user would pick instead (a no-op BullMQ worker on the
same Redis; pg-boss work() with batchSize c and graphile-worker on the same PostgreSQL), and each store's raw
ceiling (append + fsync per write; SQLite's five writes a message in one transaction, FULL;
single-INSERT transactions on PostgreSQL; scripted Redis calls; memory: no durability). Needs
\`npm run build\` first.

Options:
  --messages <n>          messages per run (default ${DEFAULTS.messages})
  --concurrency <list>    clients at once, comma-separated (default ${DEFAULTS.concurrency.join(',')})
  --backends <list>       of ${BACKENDS.join(', ')} (default ${DEFAULTS.backends.join(',')})
  --redis-url <url>       Redis for botmesh, BullMQ and the raw ceiling (default $BOTMESH_REDIS_URL or ${DEFAULTS.redisUrl})
  --postgres-url <url>    PostgreSQL database for botmesh, pg-boss, graphile-worker and the raw ceiling (default $BOTMESH_POSTGRES_URL or ${DEFAULTS.postgresUrl})
  --ceiling <n>           operations of each raw ceiling and jobs of each queue peer's run, 0 for none
                          (default: as many as --messages)
  --run-timeout <s>       a run still going after this many seconds is killed (default ${DEFAULTS.runTimeoutSeconds})
  --rounds <n>            run each backend and concurrency n times, botmesh then its peers each time;
                          every figure is the median of the rounds (each ratio taken within its own
                          round), with the lowest and highest ratio beside it (default ${DEFAULTS.rounds}).
                          Runs on a shared machine move by ±20% from one to the next: 3 or 5 rounds
                          tell a change from noise
  --json                  one JSON document on stdout instead of the table
  -h, --help

Everything a run creates (temp dirs, random Redis key prefixes, random PostgreSQL tables and
schemas) is removed when it ends.

Examples:
  $ npm run build && npm run bench
  $ npm run bench -- --messages 500 --concurrency 8 --backends memory,sqlite --json
  $ npm run bench -- --rounds 3 --concurrency 8 --backends file,redis`

/** A bad option or a failed run; `code` is stable. */
export class BenchError extends Error {
  /** BENCH_USAGE, BENCH_NOT_BUILT, BENCH_RUN_FAILED, BENCH_CEILING_FAILED, BENCH_PEER_FAILED */
  code

  constructor(code, message, options) {
    super(message, options)
    this.name = 'BenchError'
    this.code = code
  }
}

/** The options of `argv`, or `{ help: true }`; throws BenchError BENCH_USAGE. */
export function parseOptions(argv, env = process.env) {
  let values
  try {
    ;({ values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        messages: { type: 'string' },
        concurrency: { type: 'string' },
        backends: { type: 'string' },
        'redis-url': { type: 'string' },
        'postgres-url': { type: 'string' },
        ceiling: { type: 'string' },
        'run-timeout': { type: 'string' },
        rounds: { type: 'string' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }))
  } catch (error) {
    throw new BenchError('BENCH_USAGE', `${error.message}\n\n${HELP}`)
  }
  if (values.help) return { help: true }
  const messages = values.messages === undefined ? DEFAULTS.messages : count(values.messages, '--messages', 1, LIMITS.messages)
  return {
    help: false,
    json: values.json,
    messages,
    concurrency:
      values.concurrency === undefined
        ? DEFAULTS.concurrency
        : list(values.concurrency, '--concurrency').map((c) => count(c, '--concurrency', 1, LIMITS.concurrency)),
    backends: values.backends === undefined ? DEFAULTS.backends : backends(values.backends),
    redisUrl: values['redis-url'] ?? env.BOTMESH_REDIS_URL ?? DEFAULTS.redisUrl,
    postgresUrl: values['postgres-url'] ?? env.BOTMESH_POSTGRES_URL ?? DEFAULTS.postgresUrl,
    ceiling: values.ceiling === undefined ? messages : count(values.ceiling, '--ceiling', 0, LIMITS.messages),
    rounds: values.rounds === undefined ? DEFAULTS.rounds : count(values.rounds, '--rounds', 1, LIMITS.rounds),
    runTimeoutMs:
      1_000 *
      (values['run-timeout'] === undefined
        ? DEFAULTS.runTimeoutSeconds
        : count(values['run-timeout'], '--run-timeout', 1, LIMITS.runTimeoutSeconds)),
  }
}

function list(value, flag) {
  const items = value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
  if (items.length === 0) throw new BenchError('BENCH_USAGE', `${flag} needs at least one value`)
  return [...new Set(items)]
}

function count(value, flag, min, max) {
  const n = Number(value)
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new BenchError('BENCH_USAGE', `${flag} must be a whole number from ${min} to ${max}; got ${JSON.stringify(value)}`)
  }
  return n
}

function backends(value) {
  const named = list(value, '--backends')
  const unknown = named.filter((name) => !BACKENDS.includes(name))
  if (unknown.length > 0)
    throw new BenchError('BENCH_USAGE', `--backends: unknown ${unknown.join(', ')}; expected some of ${BACKENDS.join(', ')}`)
  return BACKENDS.filter((name) => named.includes(name))
}
