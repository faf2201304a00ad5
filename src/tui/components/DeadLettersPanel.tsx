/**
 * A dead-letter panel (inbox DLQ, outbox DLQ, or the sends whose outcome is unknown): one page of
 * records with chat, attempts, age and last error, and where the page sits in the whole lane.
 */
import { Box } from 'ink'
import type { DeadPage } from '../dead-pages.js'
import { columnWidths, compact, duration, row, type ColumnSpec } from '../format.js'
import { windowStart } from '../layout.js'
import type { RowState } from '../selection.js'
import type { Theme } from '../theme.js'
import { ListRow } from './ListRow.js'
import { PanelTitle } from './PanelTitle.js'

export interface DeadLettersPanelProps {
  number: number
  /** Set while nothing was read: why the figures are unknown (shown instead of an empty list). */
  unknown?: string | undefined
  title: string
  page: DeadPage | undefined
  /** Records of the lane in all (the index count; undefined: not known). */
  total: number | undefined
  /** Pages before this one (the page number is this + 1). */
  pagesBefore: number
  filter: string
  row: RowState
  focused: boolean
  /** Lines, the title included. */
  height: number
  width: number
  now: number
  theme: Theme
}

const COLUMNS: ColumnSpec[] = [
  { min: 10, grow: 3, max: 48 },
  { min: 6, grow: 1, max: 20 },
  { min: 3, align: 'right' },
  { min: 7, align: 'right' },
  { min: 8, grow: 5 },
]

export function DeadLettersPanel(props: DeadLettersPanelProps) {
  const { page, total, row: selection, focused, height, width, now, theme } = props
  const records = page?.records ?? []
  const summary = summaryOf(props, records.length)
  const rows = Math.max(0, height - 1)
  const start = windowStart(records.length, selection.index, rows)
  const widths = columnWidths(width - 2, COLUMNS)
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      <PanelTitle number={props.number} title={props.title} summary={summary} focused={focused} width={width} theme={theme} />
      {records.slice(start, start + rows).map((record, offset) => {
        const error = record.lastError ? `${record.lastError.code ? `${record.lastError.code}: ` : ''}${record.lastError.message}` : '-'
        const text = row([record.id, record.chatId, `${record.attempts}×`, duration(now - record.updatedAt), error], widths, COLUMNS)
        return <ListRow key={record.id} text={text} selected={start + offset === selection.index} focused={focused} width={width} theme={theme} />
      })}
    </Box>
  )
}

/** "3", "20.1k · page 2: 50 (pgdn: more)", "2 match "crm" of 3". */
function summaryOf(props: DeadLettersPanelProps, shown: number): string {
  const { page, total, filter, pagesBefore } = props
  if (!page || total === undefined) return props.unknown ?? (total === undefined ? 'unknown' : compact(total))
  const paged = pagesBefore > 0 || page.next !== null
  const pageText = paged ? ` · page ${pagesBefore + 1}${page.next ? ' (pgdn: more)' : ''}` : ''
  if (filter === '') return total === 0 ? 'none' : `${compact(total)}${paged ? ` in all${pageText}: ${shown} shown` : ''}`
  const limited = page.scanLimited ? ` (read ${compact(page.scanned)}; pgdn reads on)` : ''
  return `${shown} match "${filter}" of ${compact(total)}${pageText}${limited}`
}
