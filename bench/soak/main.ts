/**
 * `npm run soak -- --backend B --duration D --rate N [--retention D] [--interval D] [--chats N] [--json]`:
 * a steady rate held for a long time on a throwaway instance of a backend, a sample printed every
 * interval, then whether the journal's records and the process's memory stayed flat over the last
 * half (soak.ts). The repository's, beside `npm run bench`: the package does not ship it.
 * Run: node --import ./test-utils/ts-loader.mjs bench/soak/main.ts … (what `npm run soak` does).
 */
import { parseArgs } from 'node:util'
import { parseCount, parseDuration, parseRate, resolveCliConfig } from '../../src/cli/config.js'
import { Output } from '../../src/cli/output.js'
import { throwawayFactory } from '../../src/operator/throwaway.js'
import { runSoak } from './soak.js'
import { soakColumns, soakHeading, soakSampleLine, soakSummaryView } from './view.js'

/** The soak's retention unless --retention: short, so purging must keep pace within minutes. */
export const SOAK_RETENTION_DEFAULT = '1m'
/** How often a sample is taken unless --interval. */
export const SOAK_INTERVAL_DEFAULT = '30s'
/** The chats the messages go to in turn unless --chats. */
export const SOAK_CHATS_DEFAULT = '8'
/** The longest soak. */
const SOAK_DURATION_MAX_MS = 7 * 24 * 3_600_000
/** The highest rate, messages per second. */
const SOAK_RATE_MAX = 1_000_000
/** The most chats. */
const SOAK_CHATS_MAX = 10_000

const HELP = `npm run soak -- --backend <name|URL> --duration <d> --rate <n> [options]

Sends a steady --rate for --duration to a throwaway instance of the backend (beside a URL, never on
its data) with a short --retention, prints a sample every --interval (msg/s, p50/p99, journal
records, purge backlog, RSS), then whether records and RSS stayed flat over the last half.

Options:
  --backend <name|URL>    memory, file, sqlite, redis, postgres, events, or a URL to run beside
  --duration <d>          how long to send (e.g. 10m; at most 7d)
  --rate <n>              messages per second to hold
  --retention <d>         the bot's retention (default ${SOAK_RETENTION_DEFAULT})
  --interval <d>          how often a sample is printed (default ${SOAK_INTERVAL_DEFAULT})
  --chats <n>             chats the messages go to in turn (default ${SOAK_CHATS_DEFAULT})
  --json                  one JSON line a sample, then the summary's
  -h, --help

Examples:
  $ npm run soak -- --backend sqlite --duration 10m --rate 400
  $ npm run soak -- --backend redis --duration 10m --rate 800 --retention 1m --interval 30s --json > soak.ndjson`

/** Bad usage: exit 2 with the reason, as the CLI does. */
class SoakUsageError extends Error {
  readonly code = 'SOAK_USAGE'
}

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      backend: { type: 'string' },
      duration: { type: 'string' },
      rate: { type: 'string' },
      retention: { type: 'string', default: SOAK_RETENTION_DEFAULT },
      interval: { type: 'string', default: SOAK_INTERVAL_DEFAULT },
      chats: { type: 'string', default: SOAK_CHATS_DEFAULT },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  })
  if (values.help) return void process.stdout.write(`${HELP}\n`)
  for (const flag of ['backend', 'duration', 'rate'] as const)
    if (values[flag] === undefined) throw new SoakUsageError(`--${flag} is needed (npm run soak -- --help)`)
  const durationMs = parseDuration(values.duration!, '--duration')
  if (durationMs > SOAK_DURATION_MAX_MS) throw new SoakUsageError(`--duration must be at most 7d; got ${JSON.stringify(values.duration)}`)
  const rate = parseRate(values.rate!, '--rate')
  if (rate > SOAK_RATE_MAX)
    throw new SoakUsageError(`--rate must be at most ${SOAK_RATE_MAX} per second; got ${JSON.stringify(values.rate)}`)
  const config = resolveCliConfig({ backend: values.backend, json: values.json }, process.env)
  const out = new Output({ stdout: process.stdout, stderr: process.stderr, stdin: process.stdin }, process.env)
  out.configure({ format: config.format, secrets: config.secrets })
  const interrupt = new AbortController()
  process.once('SIGINT', () => interrupt.abort())
  const options = {
    durationMs,
    rate,
    retentionMs: parseDuration(values.retention, '--retention'),
    intervalMs: parseDuration(values.interval, '--interval'),
    chats: parseCount(values.chats, '--chats', { max: SOAK_CHATS_MAX }),
    signal: interrupt.signal,
  }
  const label = config.target.label
  const factory = throwawayFactory(config.target, { ...config.open, logger: { error: (message) => out.note(message) } })
  // Under --json the heading goes to stderr (stdout holds the JSON lines only) and the columns are not drawn.
  out.show(out.json ? [soakHeading(label, options)] : [soakHeading(label, options), soakColumns()])
  const summary = await runSoak(label, factory, options, (sample) => (out.json ? out.jsonLine(sample) : out.show([soakSampleLine(sample)])))
  if (out.json) out.jsonLine(summary)
  else out.show(soakSummaryView(summary))
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const { code, message } = error as { code?: string; message?: string }
  process.stderr.write(`${code ? `${code}: ` : ''}${message ?? String(error)}\n`)
  process.exitCode = code === 'SOAK_USAGE' || code === 'USAGE' || code?.startsWith('ERR_PARSE_ARGS') ? 2 : 1
})
