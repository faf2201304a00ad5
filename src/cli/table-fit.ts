/**
 * Fitting a table into a terminal's width. Each column has a natural width (its widest cell, up to
 * its cap) and a floor (its header, or its `minWidth`; a `whole` column's floor is its natural width,
 * so an id stays whole for an operator to copy). Columns whose floors do not fit are hidden,
 * the least important first; then the shown columns are cut from their natural widths, the least
 * important first, never below their floors. Widths are measured with `string-width`, so wide
 * characters and emoji count as the terminal draws them, and cells are cut with `cli-truncate`.
 */
import cliTruncate from 'cli-truncate'
import stringWidth from 'string-width'

/** What fitting needs to know of a column. */
export interface FitColumn {
  header: string
  /** Higher is kept longer: the lowest is cut first, then hidden first. @default 0 */
  priority?: number
  /** Cells are cut to at most this width even when the terminal has room. @default TABLE_LIMITS.cellWidthMax */
  maxWidth?: number
  /** Cut no narrower than this (a less important column is hidden instead). @default TABLE_LIMITS.columnWidthMin */
  minWidth?: number
  /** Never cut, whatever its width (ids an operator copies into the next command). @default false */
  whole?: boolean
}

export const TABLE_LIMITS = {
  /** Spaces between two columns. */
  gap: 2,
  /** A cell's width at most, unless its column says otherwise. */
  cellWidthMax: 60,
  /** A column is cut no narrower than its header or this (or its own minWidth), whichever is wider. */
  columnWidthMin: 5,
  /** The width assumed for a terminal that does not report one. */
  terminalWidthDefault: 80,
} as const

/** Which columns are shown and how wide each is. */
export interface FittedTable {
  /** Indexes of the shown columns, in their order. */
  shown: number[]
  /** Width of every column (hidden ones included, unused). */
  widths: number[]
  /** Headers of the columns hidden because even cut they did not fit. */
  hidden: string[]
}

/** Widths that fit `cells` (one string per column per row) into `width` terminal columns. */
export function fitColumns(columns: readonly FitColumn[], cells: readonly string[][], width: number): FittedTable {
  const natural = columns.map((column, index) => {
    const widest = Math.max(stringWidth(column.header), ...cells.map((row) => stringWidth(row[index] ?? '')))
    return column.whole ? widest : Math.min(widest, Math.max(stringWidth(column.header), column.maxWidth ?? TABLE_LIMITS.cellWidthMax))
  })
  const floor = columns.map((column, index) =>
    column.whole
      ? natural[index]!
      : Math.min(natural[index]!, Math.max(stringWidth(column.header), column.minWidth ?? TABLE_LIMITS.columnWidthMin)),
  )
  const shown = columns.map((_, index) => index)
  const widthOf = (widths: readonly number[]) =>
    shown.reduce((sum, index) => sum + widths[index]!, 0) + TABLE_LIMITS.gap * Math.max(0, shown.length - 1)
  // Least important first; of equal importance, the one further right.
  const order = [...shown].sort((a, b) => (columns[a]!.priority ?? 0) - (columns[b]!.priority ?? 0) || b - a)
  const hidden: string[] = []
  for (const index of order) {
    if (widthOf(floor) <= width || shown.length === 1) break
    shown.splice(shown.indexOf(index), 1)
    hidden.push(columns[index]!.header)
  }
  const widths = [...natural]
  for (const index of order) {
    const over = widthOf(widths) - width
    if (over <= 0) break
    if (shown.includes(index)) widths[index] = Math.max(floor[index]!, widths[index]! - over)
  }
  return { shown, widths, hidden }
}

/** A cell cut to `width` with an ellipsis at its end. */
export function cutCell(text: string, width: number): string {
  return stringWidth(text) <= width ? text : cliTruncate(text, width, { position: 'end' })
}

/** Spaces that pad `text` to `width` on the side its alignment leaves free. */
export function padding(text: string, width: number): string {
  return ' '.repeat(Math.max(0, width - stringWidth(text)))
}
