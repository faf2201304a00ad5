/**
 * How the screen's rows are shared (pure): a status line, a message line, the counts, the panels
 * and the help bar, in exactly `rows - 1` lines. The last line stays free because Ink redraws the
 * whole terminal on every frame once its output is as tall as the terminal. The focused panel
 * gets rows first, then the others one row at a time, so every panel stays visible at 80×24.
 */
import { PANELS, type PanelId } from '../state/panels.js'

/** Lines of everything but the counts and the panels at the least: status, message, and the help bar's two. */
export const CHROME_LINES = 4

/** The lines the counts take: two per journal with sparklines, one per journal on a short terminal. */
export function countsLines(rows: number): number {
  return rows >= 20 ? 4 : 2
}

/**
 * Lines for the panels (and for an overlay that covers them) on a terminal of `rows`, with `chrome`
 * lines of status, message and help (more than the least when a message or the help wraps).
 */
export function panelAreaLines(rows: number, chrome = CHROME_LINES): number {
  return Math.max(1, rows - 1 - chrome - countsLines(rows))
}

/**
 * Lines per panel, its title included (0: not shown), for `available` lines. `wanted` is how many
 * rows each panel has to show. A terminal too short for every title shows the focused panel only.
 */
export function panelHeights(available: number, focus: PanelId, wanted: Record<PanelId, number>): Record<PanelId, number> {
  const heights = Object.fromEntries(PANELS.map((panel) => [panel, 0])) as Record<PanelId, number>
  if (available < PANELS.length + 1) {
    heights[focus] = Math.max(1, available)
    return heights
  }
  for (const panel of PANELS) heights[panel] = 1
  let rest = available - PANELS.length
  const others = PANELS.filter((panel) => panel !== focus)
  // The focused panel takes two rows a round, the others one, until each has what it wants.
  for (let progress = true; rest > 0 && progress;) {
    progress = false
    for (const panel of [focus, focus, ...others]) {
      if (rest > 0 && heights[panel] - 1 < wanted[panel]) {
        heights[panel]++
        rest--
        progress = true
      }
    }
  }
  return heights
}

/** The first row to show of `count` rows in `size` lines so that row `selected` is visible. */
export function windowStart(count: number, selected: number, size: number): number {
  if (size <= 0 || count <= size) return 0
  // With room for it, one row past the selection shows too: the operator sees what comes next.
  const lookahead = size > 2 && selected < count - 1 ? 1 : 0
  return Math.min(Math.max(0, selected - size + 1 + lookahead), count - size)
}
