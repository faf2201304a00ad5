/**
 * Small pure formatters the dashboard's components share: compact counts, rates, ages, clock
 * times, sparklines and fixed-width columns that always fit the terminal's width. Every text a
 * component shows goes through `fit`, `fitMiddle` or `wrap`, which escape control characters
 * (services/terminal-text.ts) before they measure: record content never drives the terminal.
 */
import { duration } from '../../operator/show.js'
import { escapeControls } from '../../operator/terminal-text.js'

export { duration }

/** 12, 1,234, 12.3k, 1.23M: a count in at most six characters. */
export function compact(n: number): string {
  if (n < 10_000) return n.toLocaleString('en')
  if (n < 1_000_000) return `${(n / 1_000).toFixed(n < 100_000 ? 1 : 0)}k`
  return `${(n / 1_000_000).toFixed(n < 10_000_000 ? 2 : 1)}M`
}

/** "4.2/s", "0/s", "-" when not known yet. */
export function rate(value: number | undefined): string {
  if (value === undefined) return '-'
  if (value === 0) return '0/s'
  if (value < 10) return `${value.toFixed(1)}/s`
  return `${compact(Math.round(value))}/s`
}

/** "12s ago", "in 4s" or "4s ago" for a signed distance. */
export function relative(ms: number): string {
  return ms >= 0 ? `in ${duration(ms)}` : `${duration(-ms)} ago`
}

/** HH:MM:SS on the local clock. */
export function clockTime(at: number): string {
  const date = new Date(at)
  return [date.getHours(), date.getMinutes(), date.getSeconds()].map((part) => String(part).padStart(2, '0')).join(':')
}

const BARS = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'] as const

/** The last `width` values as bars, scaled to the largest of them (all ▁ when all are 0). */
export function sparkline(values: readonly number[], width: number): string {
  if (width <= 0) return ''
  const shown = values.slice(-width)
  const max = Math.max(0, ...shown)
  return shown
    .map((value) => (max === 0 ? BARS[0] : BARS[Math.min(BARS.length - 1, Math.round((Math.max(0, value) / max) * (BARS.length - 1)))]))
    .join('')
}

/** Cuts `text` to `width` characters, ending in … when cut. */
export function fit(raw: string, width: number): string {
  if (width <= 0) return ''
  const text = escapeControls(raw)
  return text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`
}

/** Cuts `text` to `width` characters keeping both ends: "sqlite:/very/lo…/bot.db". */
export function fitMiddle(raw: string, width: number): string {
  if (width <= 0) return ''
  const text = escapeControls(raw)
  if (text.length <= width) return text
  const head = Math.ceil((width - 1) / 2)
  return `${text.slice(0, head)}…${text.slice(text.length - (width - 1 - head))}`
}

/** One line of text from a value that may hold line breaks and runs of spaces (an error message). */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim()
}

/** A column of a row: a share of the free width between a minimum and a maximum. */
export interface ColumnSpec {
  min: number
  max?: number
  /** Share of the width left once every column has its minimum. @default 0 */
  grow?: number
  align?: 'left' | 'right'
}

/** The widths of the columns for a row of `width` characters (one space between columns). */
export function columnWidths(width: number, specs: readonly ColumnSpec[]): number[] {
  const widths = specs.map((spec) => spec.min)
  let free = width - widths.reduce((sum, w) => sum + w, 0) - (specs.length - 1)
  const growing = specs.map((spec, index) => ({ spec, index })).filter(({ spec }) => (spec.grow ?? 0) > 0)
  // Hand out the free width by share, column by column, never past a column's maximum.
  for (let round = 0; round < 4 && free > 0 && growing.length > 0; round++) {
    const open = growing.filter(({ spec, index }) => spec.max === undefined || widths[index]! < spec.max)
    const shares = open.reduce((sum, { spec }) => sum + spec.grow!, 0)
    if (shares === 0) break
    let given = 0
    for (const { spec, index } of open) {
      const room = spec.max === undefined ? Infinity : spec.max - widths[index]!
      const add = Math.min(room, Math.floor((free * spec.grow!) / shares))
      widths[index]! += add
      given += add
    }
    free -= given
    if (given === 0) break
  }
  return widths
}

/** A row of cells at the given widths, each cut or padded to its width. */
export function row(cells: readonly string[], widths: readonly number[], specs: readonly ColumnSpec[]): string {
  return cells
    .map((cell, index) => {
      const width = widths[index] ?? 0
      const text = fit(oneLine(cell), width)
      return specs[index]?.align === 'right' ? text.padStart(width) : text.padEnd(width)
    })
    .join(' ')
    .trimEnd()
}

/** Wraps text into lines of at most `width` characters, at spaces where it can. */
export function wrap(text: string, width: number): string[] {
  if (width <= 0) return []
  const lines: string[] = []
  for (const paragraph of escapeControls(text).split('\n')) {
    let line = ''
    for (const word of paragraph.split(' ')) {
      let rest = word
      while (rest.length > width) {
        if (line) (lines.push(line), (line = ''))
        lines.push(rest.slice(0, width))
        rest = rest.slice(width)
      }
      if (!line) line = rest
      else if (line.length + 1 + rest.length <= width) line += ` ${rest}`
      else (lines.push(line), (line = rest))
    }
    lines.push(line)
  }
  return lines
}

/** Wraps a "name       value" line so that the value's continuation lines stay under the value. */
export function wrapField(line: string, width: number, indent = 12): string[] {
  const isField = line.length > indent && line[0] !== ' ' && line[indent - 1] === ' ' && width > indent + 16
  if (!isField) return wrap(line, width)
  const [first = '', ...rest] = wrap(line.slice(indent), width - indent)
  return [line.slice(0, indent) + first, ...rest.map((part) => ' '.repeat(indent) + part)]
}

/** Packs items (keys and what they do) into lines of at most `width`, two spaces apart; at least one line. */
export function wrapItems(items: readonly string[], width: number, separator = '  '): string[] {
  const lines: string[] = []
  let line = ''
  for (const item of items) {
    if (!line) line = item
    else if (line.length + separator.length + item.length <= width) line += separator + item
    else (lines.push(line), (line = item))
  }
  lines.push(line)
  // An item wider than the terminal wraps at its spaces.
  return lines.flatMap((part) => (part.length > width ? wrap(part, width) : [part]))
}
