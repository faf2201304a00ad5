/**
 * The message line, by priority: the confirmation's question, the filter being typed, a running
 * action's progress, the refresh failure (with the next try), the last notice, the filter in use.
 */
import { Text } from 'ink'
import { compact, clockTime, duration, fit } from './format.js'
import type { DashboardState } from '../state/reduce.js'
import type { Theme, Tone } from './theme.js'

export interface MessageLineProps {
  overlay: DashboardState['overlay']
  failure: DashboardState['failure']
  notice: DashboardState['notice']
  filter: string
  /** Local clock of the last good refresh (the data shown is from then). */
  lastRefreshAt: number | undefined
  /** The local clock now. */
  clock: number
  width: number
  theme: Theme
}

export function MessageLine(props: MessageLineProps) {
  const { text, tone, bold } = messageOf(props)
  return (
    <Text wrap="truncate-end" color={tone ? props.theme.tone(tone) : undefined} bold={bold}>
      {/* An empty Text takes no line in Ink: a space keeps the layout still. */}
      {fit(text, props.width) || ' '}
    </Text>
  )
}

function messageOf({ overlay, failure, notice, filter, lastRefreshAt, clock, width }: MessageLineProps): {
  text: string
  tone?: Tone
  bold?: boolean
} {
  if (overlay.type === 'confirm') {
    // The question gives way to the reason being typed: the operator must see what they type.
    const typed = ` reason: ${overlay.reason}█`
    return { text: `${fit(`? ${overlay.request.question}`, Math.max(0, width - typed.length))}${typed}`, tone: 'warn', bold: true }
  }
  if (overlay.type === 'filter') return { text: `filter: ${overlay.draft}█  (enter applies, esc cancels)`, tone: 'accent' }
  if (overlay.type === 'running') {
    const verb = overlay.request.verb === 'replay' ? 'replaying' : overlay.request.verb === 'retry' ? 'retrying' : 'discarding'
    return { text: `… ${verb} ${compact(overlay.done)}/${compact(overlay.total)} (esc stops)`, tone: 'accent' }
  }
  if (failure) {
    const retry = failure.retryAt > clock ? `retry in ${duration(failure.retryAt - clock)}` : 'retrying'
    const stale = lastRefreshAt === undefined ? 'nothing read yet' : `showing what was read at ${clockTime(lastRefreshAt)}`
    // The retry first and short: a long error message is cut at the end of the line, the retry
    // never is, and at 80 columns the cause must still fit.
    return {
      text: `✖ refresh failed${failure.count > 1 ? ` ${failure.count}×` : ''}, ${retry}: ${failure.message} · ${stale}`,
      tone: 'error',
      bold: true,
    }
  }
  if (notice)
    return {
      text: `${notice.tone === 'error' ? '✖' : notice.tone === 'ok' ? '✔' : '·'} ${notice.text}`,
      tone: notice.tone === 'error' ? 'error' : notice.tone === 'ok' ? 'ok' : undefined,
    }
  if (filter) return { text: `filter "${filter}" on every list (esc clears)`, tone: 'accent' }
  return { text: '' }
}
