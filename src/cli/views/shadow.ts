/**
 * The human view of `botmesh shadow`: the messages that did not come out the same (a table), each
 * changed message's replies side by side (recorded | new code), each failure's error, and the
 * summary line; with `--state dead` / `--sends dead`, how many would now run without an error.
 */
import type { ShadowMessage, ShadowReport } from '../../testing/shadow/index.js'
import { table, type Block } from '../output.js'

/** How much of a long run the view shows (-o json shows everything). */
export const SHADOW_VIEW_LIMITS = {
  /** Changed messages whose replies are shown side by side. */
  diffsMax: 20,
} as const

/** What the view says besides the report: whether dead letters were run. */
export interface ShadowViewContext {
  /** The messages were dead letters (`--state dead` or `--sends dead`). */
  dead: boolean
}

export function shadowView(report: ShadowReport, context: ShadowViewContext): Block[] {
  const different = report.messages.filter((message) => message.outcome !== 'same')
  const blocks: Block[] = []
  if (different.length > 0) blocks.push(messagesTable(different))
  const changed = different.filter((message) => message.outcome === 'changed')
  for (const message of changed.slice(0, SHADOW_VIEW_LIMITS.diffsMax)) blocks.push(...diffOf(message))
  if (changed.length > SHADOW_VIEW_LIMITS.diffsMax)
    blocks.push({
      text: `… and ${changed.length - SHADOW_VIEW_LIMITS.diffsMax} more changed message(s): -o json shows every one`,
      tone: 'dim',
    })
  for (const message of different.filter((each) => each.outcome === 'failed')) {
    blocks.push({
      text: `${message.id} failed: ${message.error?.message ?? 'unknown error'}${message.error?.code ? ` (${message.error.code})` : ''}`,
      tone: 'red',
    })
  }
  blocks.push(summaryLine(report))
  if (context.dead && report.summary.messages > 0) blocks.push(deadLine(report))
  return blocks
}

function messagesTable(messages: ShadowMessage[]): Block {
  return table(
    [
      { header: 'id', value: (m: ShadowMessage) => m.id, whole: true, priority: 5 },
      { header: 'chat', value: (m) => m.chatId, priority: 2, maxWidth: 24 },
      { header: 'outcome', value: (m) => m.outcome, tone: (m) => (m.outcome === 'failed' ? 'red' : 'yellow'), priority: 4 },
      { header: 'replies', value: (m) => `${m.recorded.length} → ${m.shadow.length}`, align: 'right', priority: 3 },
      { header: 'first difference', value: firstDifference, priority: 1, minWidth: 20 },
    ],
    messages,
  )
}

/** The first reply that differs, as `recorded → new`, or the error of a failure. */
function firstDifference(message: ShadowMessage): string {
  if (message.outcome === 'failed') return message.error?.message ?? ''
  const count = Math.max(message.recorded.length, message.shadow.length)
  for (let n = 0; n < count; n++) {
    if (message.recorded[n] !== message.shadow[n]) return `${message.recorded[n] ?? '(none)'} → ${message.shadow[n] ?? '(none)'}`
  }
  return ''
}

/** A changed message's replies side by side, a row per position. */
function diffOf(message: ShadowMessage): Block[] {
  const count = Math.max(message.recorded.length, message.shadow.length)
  const rows = Array.from({ length: count }, (_, n) => ({
    n: n + 1,
    recorded: message.recorded[n] ?? '',
    shadow: message.shadow[n] ?? '',
  }))
  type Row = (typeof rows)[number]
  const differs = (row: Row) => row.recorded !== row.shadow
  return [
    { text: `${message.id} (chat ${message.chatId}): changed`, tone: 'yellow' },
    table(
      [
        {
          header: '#',
          value: (row: Row) => `${differs(row) ? '≠' : '='}${row.n}`,
          tone: (row) => (differs(row) ? 'yellow' : undefined),
          priority: 3,
        },
        { header: 'recorded', value: (row) => row.recorded || '(none)', priority: 2, minWidth: 12 },
        { header: 'new code', value: (row) => row.shadow || '(none)', priority: 2, minWidth: 12 },
      ],
      rows,
    ),
  ]
}

function summaryLine({ summary }: ShadowReport): Block {
  const text = `${summary.messages} message(s): ${summary.same} same, ${summary.changed} changed, ${summary.failed} failed`
  if (summary.messages === 0) return { text: '0 messages matched: nothing was replayed', tone: 'dim' }
  return { text, tone: summary.failed > 0 ? 'red' : summary.changed > 0 ? 'yellow' : 'green' }
}

function deadLine({ summary }: ShadowReport): Block {
  const succeed = summary.same + summary.changed
  return {
    text: `${succeed} of ${summary.messages} dead-lettered message(s) would now run without an error; ${summary.failed} would fail again`,
    tone: summary.failed > 0 ? 'yellow' : 'green',
  }
}
