/**
 * A terminal frame (text with ANSI colour codes, as Ink draws it) as an SVG picture: one `<text>`
 * per line in a monospace font, a `<tspan>` per run of one style. Only what the dashboard's theme
 * uses is read: bold, dim, inverse, and the 16 foreground and background colours.
 */

/** The colours of a dark terminal theme, by ANSI number (0–7 normal, 8–15 bright). */
const PALETTE = [
  '#1e1e1e',
  '#e06c75',
  '#98c379',
  '#e5c07b',
  '#61afef',
  '#c678dd',
  '#56b6c2',
  '#d4d4d4',
  '#7f848e',
  '#ff7b86',
  '#b5e890',
  '#ffd68a',
  '#7cc4ff',
  '#dd9cf0',
  '#6fe3f0',
  '#ffffff',
]
const FOREGROUND = '#d4d4d4'
const BACKGROUND = '#1e1e1e'

/** The size of one cell, in SVG pixels. */
const CELL = { width: 8.4, height: 17 } as const
const PADDING = 12

interface Style {
  fg?: number
  bg?: number
  bold: boolean
  dim: boolean
  inverse: boolean
}

interface Run {
  text: string
  style: Style
}

const PLAIN: Style = { bold: false, dim: false, inverse: false }

/** Applies one SGR sequence's parameters to a style. */
function applySgr(style: Style, parameters: number[]): Style {
  let next = { ...style }
  for (const code of parameters.length === 0 ? [0] : parameters) {
    if (code === 0) next = { ...PLAIN }
    else if (code === 1) next.bold = true
    else if (code === 2) next.dim = true
    else if (code === 22) ((next.bold = false), (next.dim = false))
    else if (code === 7) next.inverse = true
    else if (code === 27) next.inverse = false
    else if (code >= 30 && code <= 37) next.fg = code - 30
    else if (code >= 90 && code <= 97) next.fg = code - 90 + 8
    else if (code === 39) next.fg = undefined
    else if (code >= 40 && code <= 47) next.bg = code - 40
    else if (code >= 100 && code <= 107) next.bg = code - 100 + 8
    else if (code === 49) next.bg = undefined
  }
  return next
}

/** A line split into runs of one style; the style at its end carries over to the next line. */
function runsOf(line: string, start: Style): { runs: Run[]; end: Style } {
  const runs: Run[] = []
  let style = start
  let last = 0
  for (const match of line.matchAll(/\x1b\[([\d;]*)m/g)) {
    if (match.index > last) runs.push({ text: line.slice(last, match.index), style })
    style = applySgr(style, match[1] ? match[1].split(';').map(Number) : [])
    last = match.index + match[0].length
  }
  if (last < line.length) runs.push({ text: line.slice(last), style })
  return { runs, end: style }
}

function escapeXml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')
}

function attributes(style: Style): string {
  const fg = style.fg === undefined ? FOREGROUND : PALETTE[style.fg]!
  const bg = style.bg === undefined ? undefined : PALETTE[style.bg]!
  const [fill, back] = style.inverse ? [bg ?? BACKGROUND, fg] : [fg, bg]
  return [
    fill === FOREGROUND ? '' : ` fill="${fill}"`,
    style.bold ? ' font-weight="bold"' : '',
    style.dim ? ' opacity="0.6"' : '',
    back ? ` data-background="${back}"` : '',
  ].join('')
}

/** The SVG picture of a frame of `columns` × as many lines as it has. */
export function terminalSvg(frame: string, options: { columns: number; title: string }): string {
  const lines = frame.split('\n')
  const width = Math.ceil(options.columns * CELL.width + 2 * PADDING)
  const height = Math.ceil(lines.length * CELL.height + 2 * PADDING)
  const body: string[] = []
  let style = PLAIN
  lines.forEach((line, row) => {
    const { runs, end } = runsOf(line, style)
    style = end
    const y = PADDING + (row + 0.8) * CELL.height
    let column = 0
    const spans: string[] = []
    for (const run of runs) {
      const attrs = attributes(run.style)
      const background = /data-background="([^"]+)"/.exec(attrs)?.[1]
      const length = [...run.text].length
      if (background) {
        const x = PADDING + column * CELL.width
        body.push(
          `<rect x="${x.toFixed(1)}" y="${(y - 0.8 * CELL.height).toFixed(1)}" width="${(length * CELL.width).toFixed(1)}" height="${CELL.height}" fill="${background}"/>`,
        )
      }
      spans.push(`<tspan${attrs.replace(/ data-background="[^"]+"/, '')}>${escapeXml(run.text)}</tspan>`)
      column += length
    }
    if (spans.length > 0) body.push(`<text x="${PADDING}" y="${y.toFixed(1)}" xml:space="preserve">${spans.join('')}</text>`)
  })
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img">`,
    `<title>${escapeXml(options.title)}</title>`,
    `<rect width="100%" height="100%" rx="6" fill="${BACKGROUND}"/>`,
    `<g font-family="ui-monospace, 'DejaVu Sans Mono', Menlo, Consolas, monospace" font-size="14" fill="${FOREGROUND}">`,
    ...body,
    '</g>',
    '</svg>',
    '',
  ].join('\n')
}
