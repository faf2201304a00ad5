/** `botmesh bench --duration D --rate N [--retention D] [--interval D]`: the soak's flags, and its run. */
import type { Cli } from '../../src/cli/context.js'
import { parseCount, parseDuration, parseRate } from '../../src/cli/config.js'
import { UsageError } from '../../src/cli/errors.js'
import { runSoak } from './soak.js'
import { soakColumns, soakHeading, soakSampleLine, soakSummaryView } from './view.js'
import { suiteFactory } from '../../src/cli/commands/suites.js'

/** The soak's retention unless --retention: short, so purging must keep pace within minutes. */
export const SOAK_RETENTION_DEFAULT = '1m'
/** How often a sample is taken unless --interval. */
export const SOAK_INTERVAL_DEFAULT = '30s'
/** The longest soak. */
const SOAK_DURATION_MAX_MS = 7 * 24 * 3_600_000
/** The highest rate, messages per second. */
const SOAK_RATE_MAX = 1_000_000

/** The soak's flags as commander gives them. */
export interface SoakFlags {
  duration: string
  rate?: string
  retention?: string
  interval?: string
  concurrency: string
}

/** Flags only the soak reads. */
export const SOAK_ONLY_FLAGS = ['rate', 'retention', 'interval'] as const

export async function soakAction(cli: Cli, flags: SoakFlags, chatsMax: number): Promise<void> {
  if (flags.rate === undefined) throw new UsageError('--duration needs --rate: the messages per second to hold (e.g. --rate 200)')
  const durationMs = parseDuration(flags.duration, '--duration')
  if (durationMs > SOAK_DURATION_MAX_MS) throw new UsageError(`--duration must be at most 7d; got ${JSON.stringify(flags.duration)}`)
  const rate = parseRate(flags.rate, '--rate')
  if (rate > SOAK_RATE_MAX) throw new UsageError(`--rate must be at most ${SOAK_RATE_MAX} per second; got ${JSON.stringify(flags.rate)}`)
  const options = {
    durationMs,
    rate,
    retentionMs: parseDuration(flags.retention ?? SOAK_RETENTION_DEFAULT, '--retention'),
    intervalMs: parseDuration(flags.interval ?? SOAK_INTERVAL_DEFAULT, '--interval'),
    chats: parseCount(flags.concurrency, '--concurrency', { max: chatsMax }),
    signal: cli.signal,
  }
  const { label, factory } = suiteFactory(cli, 'bench')
  // Under --json the heading goes to stderr (stdout holds the JSON lines only) and the columns are not drawn.
  cli.out.show(cli.out.json ? [soakHeading(label, options)] : [soakHeading(label, options), soakColumns()])
  const summary = await runSoak(label, factory, options, (sample) =>
    cli.out.json ? cli.out.jsonLine(sample) : cli.out.show([soakSampleLine(sample)]),
  )
  if (cli.out.json) cli.out.jsonLine(summary)
  else cli.out.show(soakSummaryView(summary))
}
