/**
 * The status line: whether the view is live, paused or failing, the last refresh (local time, and
 * what it cost), the refresh rate, the scope, and the backend (password redacted). The backend is
 * last and cut in the middle when the line is too long: its two ends say the most.
 */
import { Text } from 'ink'
import { clockTime, duration, fit, fitMiddle } from '../format.js'
import type { Theme } from '../theme.js'

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

export function StatusLine({ label, scope, refreshMs, paused, lastRefresh, failing, width, theme }: StatusLineProps) {
  const marker = failing ? '✖' : paused ? '‖' : '●'
  const pace = paused ? 'PAUSED' : `every ${duration(refreshMs)}`
  const refreshed = lastRefresh ? `${clockTime(lastRefresh.at)} (${Math.round(lastRefresh.tookMs)}ms)` : 'connecting…'
  const head = `${marker} ${refreshed} · ${pace} · scope ${scope ?? '…'} · `
  return (
    <Text wrap="truncate-end" bold color={theme.tone(failing ? 'error' : paused ? 'warn' : 'title')}>
      {fit(head + fitMiddle(label, Math.max(12, width - head.length)), width)}
    </Text>
  )
}
