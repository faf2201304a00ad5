/**
 * The message line, by priority: the confirmation's question, the filter being typed, a running
 * action's progress, the refresh failure (with the next try), the last notice, the filter in use,
 * the story told beside the dashboard (the demo's step).
 * It wraps rather than cuts (a question, a result or a command must be read whole, at 80 columns
 * too), up to `messageLinesMax` lines.
 */
import { Box, Text } from 'ink'
import { compact, clockTime, duration, wrap } from './format.js'
import { DASHBOARD_LIMITS } from '../limits.js'
import type { DashboardState } from '../state/reduce.js'
import type { Theme, Tone } from './theme.js'

export interface MessageLineProps {
  overlay: DashboardState['overlay']
  failure: DashboardState['failure']
  notice: DashboardState['notice']
  filter: string
  /** The story's line (the demo's step); undefined without a story. */
  story?: string
  /** Local clock of the last good refresh (the data shown is from then). */
  lastRefreshAt: number | undefined
  /** The local clock now. */
  clock: number
  width: number
  theme: Theme
}

export function MessageLine(props: MessageLineProps) {
  const { tone, bold } = messageOf(props)
  return (
    <Box flexDirection="column" width={props.width}>
      {messageLines(props).map((line, index) => (
        <Text key={index} wrap="truncate-end" color={tone ? props.theme.tone(tone) : undefined} bold={bold}>
          {/* An empty Text takes no line in Ink: a space keeps the layout still. */}
          {line || ' '}
        </Text>
      ))}
    </Box>
  )
}

/**
 * The message's lines at the width (at least one). Past `messageLinesMax` the middle gives way:
 * the start (the question, the failure) and the end (the reason being typed) stay on screen.
 */
export function messageLines(props: MessageLineProps): string[] {
  const lines = wrap(messageOf(props).text, Math.max(1, props.width))
  const max = DASHBOARD_LIMITS.messageLinesMax
  if (lines.length <= max) return lines
  const last = lines.at(-1)!
  return [...lines.slice(0, max - 1), `…${last.slice(Math.max(0, last.length - (props.width - 1)))}`]
}

function messageOf({ overlay, failure, notice, filter, story, lastRefreshAt, clock }: MessageLineProps): {
  text: string
  tone?: Tone
  bold?: boolean
} {
  if (overlay.type === 'confirm') {
    return { text: `? ${overlay.request.question} reason: ${overlay.reason}█`, tone: 'warn', bold: true }
  }
  if (overlay.type === 'filter') return { text: `filter: ${overlay.draft}█  (enter applies, esc cancels)`, tone: 'accent' }
  if (overlay.type === 'running') {
    const verb = overlay.request.verb === 'replay' ? 'replaying' : overlay.request.verb === 'retry' ? 'retrying' : 'discarding'
    return { text: `… ${verb} ${compact(overlay.done)}/${compact(overlay.total)} (esc stops)`, tone: 'accent' }
  }
  if (failure) {
    const retry = failure.retryAt > clock ? `retry in ${duration(failure.retryAt - clock)}` : 'retrying'
    const stale = lastRefreshAt === undefined ? 'nothing read yet' : `showing what was read at ${clockTime(lastRefreshAt)}`
    // The retry first and short: a long error message wraps after it.
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
  if (story) return { text: `▸ ${story}`, tone: 'accent', bold: true }
  return { text: '' }
}
