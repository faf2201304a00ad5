/**
 * The soak's human view: a heading, then one line per interval as it is sampled (a table cannot
 * wait for a ten-minute run to size its columns, so the columns have fixed widths), then the
 * summary and the verdict on flatness.
 */
import type { Block } from '../../src/cli/output.js'
import type { Spread } from './flatness.js'
import type { SoakOptions, SoakSample, SoakSummary } from './soak.js'

/** Each column: its header and width; values are right-aligned under it. */
const COLUMNS = [
  ['at s', 7],
  ['msg/s', 9],
  ['p50 ms', 9],
  ['p99 ms', 9],
  ['records', 10],
  ['backlog', 9],
  ['purged', 9],
  ['RSS MB', 8],
  ['in flight', 10],
] as const

const MB = 1024 * 1024

/** What the run is about to do. */
export function soakHeading(label: string, options: SoakOptions): Block {
  return {
    text: `soak on ${label}: ${options.rate} msg/s for ${seconds(options.durationMs)} over ${options.chats} chats, retention ${seconds(options.retentionMs)}, a sample every ${seconds(options.intervalMs)}`,
    tone: 'bold',
  }
}

/** The header of the interval lines. */
export function soakColumns(): Block {
  return { text: line(COLUMNS.map(([header]) => header)) }
}

/** One interval's line. */
export function soakSampleLine(sample: SoakSample): Block {
  return {
    text: line([
      sample.atSeconds.toFixed(1),
      sample.messagesPerSecond.toFixed(1),
      sample.p50Ms.toFixed(2),
      sample.p99Ms.toFixed(2),
      sample.journalRecords,
      `${sample.purgeBacklogCapped ? '≥' : ''}${sample.purgeBacklog}`,
      sample.recordsPurged,
      (sample.rssBytes / MB).toFixed(1),
      sample.inFlight,
    ]),
  }
}

/** The run's totals and the verdict. */
export function soakSummaryView(summary: SoakSummary): Block[] {
  const { flatness } = summary
  const verdict =
    flatness.flat === null
      ? {
          text: `flatness: not judged (${flatness.samples} sample(s) in the last half; it takes 2: a longer --duration or a shorter --interval)`,
          tone: 'yellow' as const,
        }
      : {
          text: `${flatness.flat ? 'flat' : 'NOT flat'}: over the last half (from ${flatness.fromSeconds} s, ${flatness.samples} samples) journal records spread ${flatness.journalRecords!.spreadPercent}%, RSS ${flatness.rssBytes!.spreadPercent}% (at most ${flatness.spreadMaxPercent}% each)`,
          tone: flatness.flat ? ('green' as const) : ('red' as const),
        }
  return [
    {
      fields: [
        ['instances', summary.instances],
        ['sent', `${summary.messagesSent} messages in ${summary.seconds} s${summary.stoppedEarly ? ' (stopped early)' : ''}`],
        ['answered', `${summary.messagesAnswered} (${summary.messagesPerSecond} msg/s; p50 ${summary.p50Ms} ms, p99 ${summary.p99Ms} ms)`],
        ['failed', summary.messagesFailed === 0 ? '0' : `${summary.messagesFailed} (first: ${summary.firstError})`],
        ['unanswered', summary.messagesUnanswered],
        ['out of order', `${summary.messagesOutOfOrder} (replies that reached a chat after a later message's)`],
        ['purged', `${summary.recordsPurged} records`],
        ['records, last half', spreadLine(flatness.journalRecords, 1, '')],
        ['RSS, last half', spreadLine(flatness.rssBytes, MB, ' MB')],
      ],
    },
    verdict,
  ]
}

function spreadLine(spread: Spread | null, unit: number, suffix: string): string {
  if (!spread) return 'not enough samples'
  const show = (value: number) => `${unit === 1 ? Math.round(value) : (value / unit).toFixed(1)}${suffix}`
  return `${show(spread.min)} – ${show(spread.max)} (mean ${show(spread.mean)}), spread ${spread.spreadPercent}%`
}

function line(cells: readonly (string | number)[]): string {
  return cells.map((cell, i) => String(cell).padStart(COLUMNS[i]![1])).join(' ')
}

function seconds(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000}m`
  return ms % 1_000 === 0 ? `${ms / 1_000}s` : `${ms}ms`
}
