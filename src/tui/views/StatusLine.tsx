/**
 * The status line: whether the view is live, paused or failing, the last refresh (local time, and
 * what it cost), the refresh rate, the scope, and the backend (password redacted). The backend is
 * last and cut in the middle when the line is too long: its two ends say the most.
 */
import { Text } from 'ink'
import { clockTime, duration, fit, fitMiddle } from './format.js'
import type { Theme } from './theme.js'

export interface StatusLineProps {
  label: string
  scope: string | undefined
  refreshMs: number
  paused: boolean
  /** Local clock of the last refresh, and how long it took. */
  lastRefresh: { at: number; tookMs: number } | undefined
  failing: boolean
  width: number
  theme: Theme
}

/** Characters the backend URL keeps before the line drops its less useful parts. */
const LABEL_MIN = 20

export function StatusLine({ label, scope, refreshMs, paused, lastRefresh, failing, width, theme }: StatusLineProps) {
  const marker = failing ? '✖' : paused ? '‖' : '●'
  const pace = paused ? 'PAUSED' : `every ${duration(refreshMs)}`
  const time = lastRefresh ? clockTime(lastRefresh.at) : 'connecting…'
  const cost = lastRefresh ? ` (${Math.round(lastRefresh.tookMs)}ms)` : ''
  // On a narrow terminal the refresh's cost and the word "scope" give their room to the backend.
  const full = `${marker} ${time}${cost} · ${pace} · scope ${scope ?? '…'} · `
  const head = width - full.length >= LABEL_MIN ? full : `${marker} ${time} · ${pace} · ${scope ?? '…'} · `
  return (
    <Text wrap="truncate-end" bold color={theme.tone(failing ? 'error' : paused ? 'warn' : 'title')}>
      {fit(head + fitMiddle(label, Math.max(0, width - head.length)), width)}
    </Text>
  )
}
