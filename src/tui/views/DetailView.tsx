/** A record's (or an instance's) detail, wrapped to the width and scrolled, covering the panels. */
import { Box, Text } from 'ink'
import { fit, wrapField } from './format.js'
import type { DashboardState } from '../state/reduce.js'
import type { Theme } from './theme.js'

export interface DetailViewProps {
  detail: Extract<DashboardState['overlay'], { type: 'detail' }>
  height: number
  width: number
  theme: Theme
}

export function DetailView({ detail, height, width, theme }: DetailViewProps) {
  const lines = detail.error
    ? [`✖ ${detail.error}`]
    : detail.content
      ? detail.content.lines.flatMap((line) => (line === '' ? [''] : wrapField(line, width)))
      : ['reading…']
  const rows = Math.max(0, height - 1)
  // The offset counts logical lines; show from the first wrapped line of that one, within bounds.
  const logical = detail.content?.lines ?? []
  const skipped = logical.slice(0, detail.offset).reduce((sum, line) => sum + Math.max(1, wrapField(line, width).length), 0)
  const start = Math.max(0, Math.min(skipped, lines.length - rows))
  const title =
    detail.content?.title ??
    `${detail.target.kind === 'inbox' ? 'inbound record' : detail.target.kind === 'outbox' ? 'send' : 'instance'} ${detail.target.id}`
  const position = lines.length > rows ? `  [${start + 1}-${Math.min(lines.length, start + rows)} of ${lines.length}]` : ''
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      <Text bold color={theme.tone('focus')} wrap="truncate-end">
        {fit(`▶ ${title}${position}`, width)}
      </Text>
      {lines.slice(start, start + rows).map((line, index) => (
        <Text key={start + index} wrap="truncate-end" color={detail.error ? theme.tone('error') : undefined}>
          {line === '' ? ' ' : line}
        </Text>
      ))}
    </Box>
  )
}
