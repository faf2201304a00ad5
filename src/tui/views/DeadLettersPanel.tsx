/**
 * A dead-letter panel (inbox DLQ, outbox DLQ, or the sends whose outcome is unknown): one page of
 * records with chat, attempts, age and last error, and where the page sits in the whole lane.
 */
import type { RecordSummary } from '../../operator/records.js'
import { providerCalls } from '../../operator/show.js'
import type { DeadPage } from '../io/dead-pages.js'
import { compact, duration } from './format.js'
import type { RowState } from '../state/selection.js'
import type { Theme } from './theme.js'
import { ListTable, type TableColumn } from './ListTable.js'
import type { PanelFrame } from './panel-frame.js'

export interface DeadLettersPanelProps extends PanelFrame {
  page: DeadPage | undefined
  /** Records of the lane in all (the index count; undefined: not known). */
  total: number | undefined
  /** Pages before this one (the page number is this + 1). */
  pagesBefore: number
  filter: string
}

/** The columns at the backend's clock `now`: id, chat, attempts, age, last error. */
function columnsAt(now: number): TableColumn<RecordSummary>[] {
  return [
    { min: 10, grow: 3, max: 48, cell: (record) => record.id },
    { min: 6, grow: 1, max: 20, cell: (record) => record.chatId },
    { min: 3, align: 'right', cell: (record) => `${providerCalls(record)}×` },
    { min: 7, align: 'right', cell: (record) => duration(now - record.updatedAt) },
    {
      min: 8,
      grow: 5,
      cell: (record) =>
        record.lastError ? `${record.lastError.code ? `${record.lastError.code}: ` : ''}${record.lastError.message}` : '-',
    },
  ]
}

export function DeadLettersPanel(props: DeadLettersPanelProps) {
  const { page, row: selection, focused, height, width, now, theme } = props
  const records = page?.records ?? []
  return (
    <ListTable
      number={props.number}
      title={props.title}
      summary={summaryOf(props, records.length)}
      items={records}
      columns={columnsAt(now)}
      keyOf={(record) => record.id}
      selected={selection.index}
      focused={focused}
      height={height}
      width={width}
      theme={theme}
    />
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
