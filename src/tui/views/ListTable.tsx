/**
 * A list panel as a typed table: its title line, then the rows that fit around the selection,
 * one cell per column cut or padded to the column's width. The dead-letter, instance and lease
 * panels differ only in their columns, summary and row colour.
 */
import { Box } from 'ink'
import { columnWidths, row, type ColumnSpec } from './format.js'
import { windowStart } from './layout.js'
import type { Theme, Tone } from './theme.js'
import { ListRow } from './ListRow.js'
import { PanelTitle } from './PanelTitle.js'

/** A column: its width rule and what its cell shows of an item. */
export interface TableColumn<T> extends ColumnSpec {
  cell(item: T): string
}

/** How the rows of a table show items. */
export interface TableRowsProps<T> {
  items: readonly T[]
  columns: readonly TableColumn<T>[]
  /** A React key, unique within the items. */
  keyOf(item: T): string
  /** A colour for an item's whole row (a warning, a gone instance). */
  toneOf?(item: T): Tone | undefined
  /** The selected item's index. */
  selected: number
  focused: boolean
  /** Rows there is room for. */
  rows: number
  width: number
  theme: Theme
}

/**
 * The rows that fit, scrolled to keep the selected one in view. A list longer than its room gives
 * its last line to a marker that says how many rows it hides, above and below (`↑ 2 above · ↓ 7 more`).
 */
export function TableRows<T>({ items, columns, keyOf, toneOf, selected, focused, rows, width, theme }: TableRowsProps<T>) {
  const cut = items.length > rows && rows > 1
  const room = cut ? rows - 1 : rows
  const start = windowStart(items.length, selected, room)
  const widths = columnWidths(width - 2, columns)
  const shown = items.slice(start, start + room)
  return (
    <>
      {shown.map((item, offset) => {
        const text = row(
          columns.map((column) => column.cell(item)),
          widths,
          columns,
        )
        return (
          <ListRow
            key={keyOf(item)}
            text={text}
            selected={start + offset === selected}
            focused={focused}
            width={width}
            theme={theme}
            tone={toneOf?.(item)}
          />
        )
      })}
      {cut && (
        <ListRow
          key="\u0000more"
          text={hiddenRows(start, items.length - start - shown.length)}
          selected={false}
          focused={false}
          width={width}
          theme={theme}
        />
      )}
    </>
  )
}

/** What a cut list hides: "↓ 7 more", "↑ 2 above · ↓ 5 more", "↑ 9 above". */
export function hiddenRows(above: number, below: number): string {
  return [above > 0 ? `↑ ${above} above` : '', below > 0 ? `↓ ${below} more` : ''].filter(Boolean).join(' · ')
}

export interface ListTableProps<T> extends Omit<TableRowsProps<T>, 'rows'> {
  /** The panel's number: the key that focuses it. */
  number: number
  title: string
  summary: string
  /** Lines, the title included. */
  height: number
}

/** A panel: the title line and the rows under it. */
export function ListTable<T>({ number, title, summary, height, ...rows }: ListTableProps<T>) {
  return (
    <Box flexDirection="column" width={rows.width} height={height} overflow="hidden">
      <PanelTitle number={number} title={title} summary={summary} focused={rows.focused} width={rows.width} theme={rows.theme} />
      <TableRows {...rows} rows={Math.max(0, height - 1)} />
    </Box>
  )
}
