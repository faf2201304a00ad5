/**
 * How a human view's blocks become text. On a terminal a table is compact (a bold header line, one
 * line a row, no borders or separators) and fits the terminal's width (see table-fit.ts); field
 * values wrap under their label. Off a terminal a table is plain aligned columns of whole values,
 * so grep and awk see everything. Every text, field and cell has its secrets scrubbed and its control
 * characters escaped (services/terminal-text.ts): record content never drives the terminal.
 */
import wrapAnsi from 'wrap-ansi'
import { escapeControls } from '../operator/terminal-text.js'
import { cutCell, fitColumns, padding, TABLE_LIMITS, type FitColumn } from './table-fit.js'

/** Colours a cell or a line may ask for; dropped when colour is off. */
export type Tone = 'red' | 'yellow' | 'green' | 'cyan' | 'dim' | 'bold'

/** One column of a table: a header, how to get the cell from a row, and how much it matters on a narrow terminal. */
export interface Column<T> extends FitColumn {
  value(row: T): string | number | null | undefined
  align?: 'left' | 'right'
  tone?(row: T): Tone | undefined
}

/** What a human sees of a result: blocks printed in order. */
export type Block =
  | { table: { columns: Column<never>[]; rows: unknown[]; empty?: string } }
  /** `hang`: on a terminal, the lines a wrap adds start under column `hang` (the first `hang` characters are a label). */
  | { text: string; tone?: Tone; hang?: number }
  /** A command to copy: never wrapped; indented when it fits whole with its indent, else on a line of its own from column 0. */
  | { command: string; indent?: number; tone?: Tone }
  | { fields: [label: string, value: string | number | null | undefined][] }

/** Builds a table block with typed columns. */
export function table<T>(columns: Column<T>[], rows: readonly T[], empty?: string): Block {
  return { table: { columns: columns as Column<never>[], rows: [...rows], empty } }
}

/** Where blocks are drawn: a terminal (and how wide) or not, and how text is coloured and scrubbed. */
export interface Canvas {
  terminal: boolean
  /** Columns of the terminal (ignored off one). */
  width: number
  paint(text: string, tone: Tone | undefined): string
  scrub(text: string): string
}

/** One block as text, ending with a newline. */
export function renderBlock(block: Block, canvas: Canvas): string {
  if ('text' in block) {
    // A line of prose wraps at the terminal's width between words, never inside one: a path, an id
    // or a URL wider than the terminal goes on a line of its own, whole, so it can be copied.
    const text = shown(block.text, canvas)
    return `${canvas.paint(canvas.terminal ? wrapText(text, canvas.width, block.hang ?? 0) : text, block.tone)}\n`
  }
  if ('command' in block) {
    const text = shown(block.command, canvas)
    const indent = ' '.repeat(block.indent ?? 0)
    const fits = !canvas.terminal || indent.length + text.length <= canvas.width
    return `${canvas.paint(fits ? indent + text : text, block.tone)}\n`
  }
  if ('fields' in block) return renderFields(block.fields, canvas)
  const { columns, rows, empty } = block.table
  if (rows.length === 0) return `${canvas.paint(empty ?? '(none)', 'dim')}\n`
  return canvas.terminal ? terminalTable(columns, rows, canvas) : plainTable(columns, rows, canvas)
}

/** A line of prose wrapped at `width`, the lines after the first indented by `hang` when that leaves room for words. */
function wrapText(text: string, width: number, hang: number): string {
  const wrap = (line: string, columns: number) => wrapAnsi(line, columns, { hard: false, trim: false }).replace(/ +$/gm, '')
  if (hang <= 0 || width - hang < TABLE_LIMITS.columnWidthMin * 4) return wrap(text, width)
  const [first, ...rest] = wrap(text.slice(hang), width - hang).split('\n')
  return [text.slice(0, hang) + first, ...rest.map((line) => ' '.repeat(hang) + line.trimStart())].join('\n')
}

function renderFields(fields: [string, string | number | null | undefined][], canvas: Canvas): string {
  const labelWidth = Math.max(0, ...fields.map(([label]) => label.length))
  const valueWidth = Math.max(TABLE_LIMITS.columnWidthMin * 4, canvas.width - labelWidth - TABLE_LIMITS.gap)
  const indent = ' '.repeat(labelWidth + TABLE_LIMITS.gap)
  return fields
    .map(([label, value]) => {
      const text = shown(String(value ?? '-'), canvas)
      const lines = canvas.terminal ? wrapAnsi(text, valueWidth, { hard: true, trim: true }).split('\n') : [text]
      return `${canvas.paint(label.padEnd(labelWidth), 'bold')}${' '.repeat(TABLE_LIMITS.gap)}${lines.join(`\n${indent}`)}\n`
    })
    .join('')
}

/** A column's header as shown: capitals, but a unit in microseconds stays `µs` (a capital µ is a Greek M). */
const headerText = (header: string) =>
  header
    .split('µs')
    .map((part) => part.toUpperCase())
    .join('µs')

/** A compact table cut to the terminal's width, the least important columns first. */
function terminalTable(columns: Column<never>[], rows: unknown[], canvas: Canvas): string {
  const cells = rows.map((row) => columns.map((column) => cellText(column, row as never, canvas)))
  const headers = columns.map((column) => headerText(column.header))
  const fit = fitColumns(
    columns.map((column, index) => ({ ...column, header: headers[index]! })),
    cells,
    canvas.width,
  )
  const gap = ' '.repeat(TABLE_LIMITS.gap)
  const line = (texts: string[], tone: (index: number) => Tone | undefined) =>
    fit.shown
      .map((index) => {
        const cut = cutCell(texts[index]!, fit.widths[index]!)
        const pad = padding(cut, fit.widths[index]!)
        const painted = canvas.paint(cut, tone(index))
        return columns[index]!.align === 'right' ? pad + painted : painted + pad
      })
      .join(gap)
      .trimEnd()
  const out = [line(headers, () => 'bold'), ...rows.map((row, n) => line(cells[n]!, (index) => columns[index]!.tone?.(row as never)))]
  if (fit.hidden.length > 0)
    out.push(canvas.paint(cutCell(`hidden to fit: ${fit.hidden.join(', ').toLowerCase()} (-o json shows all)`, canvas.width), 'dim'))
  return `${out.join('\n')}\n`
}

/** Aligned columns without colour, for pipes and files: whole values, one row a line. */
function plainTable(columns: Column<never>[], rows: unknown[], canvas: Canvas): string {
  const cells = [
    columns.map((column) => headerText(column.header)),
    ...rows.map((row) => columns.map((column) => cellText(column, row as never, canvas))),
  ]
  const widths = columns.map((_, index) => Math.max(...cells.map((line) => line[index]!.length)))
  return cells
    .map((line) =>
      line
        .map((cell, index) => (columns[index]!.align === 'right' ? cell.padStart(widths[index]!) : cell.padEnd(widths[index]!)))
        .join(' '.repeat(TABLE_LIMITS.gap))
        .trimEnd(),
    )
    .join('\n')
    .concat('\n')
}

function cellText(column: Column<never>, row: never, canvas: Canvas): string {
  const value = column.value(row)
  return shown(value === null || value === undefined ? '-' : String(value).replace(/\s+/g, ' '), canvas)
}

/** Text as it may reach the terminal: secrets scrubbed, control characters escaped. */
function shown(text: string, canvas: Canvas): string {
  return escapeControls(canvas.scrub(text))
}
