/** A report (dead letters by error, the retry queue) covering the panels, scrolled by the offset, its rows wrapped. */
import { Box, Text } from 'ink'
import { fit } from './format.js'
import { rowLines, type Report } from './report-lines.js'
import type { Theme } from './theme.js'

export interface ReportViewProps {
  report: Report
  offset: number
  height: number
  width: number
  theme: Theme
}

export function ReportView({ report, offset, height, width, theme }: ReportViewProps) {
  const rows = Math.max(0, height - 2)
  // The offset counts rows; a row may take several lines.
  const lines = report.rows.flatMap((row, index) => rowLines(row, width).map((text) => ({ index, text })))
  const first = lines.findIndex((line) => line.index >= offset)
  const start = Math.max(0, Math.min(first === -1 ? 0 : first, lines.length - rows))
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      <Text bold color={theme.tone('focus')} wrap="truncate-end">
        {fit(`▶ ${report.title}`, width)}
      </Text>
      <Text color={theme.tone('muted')} wrap="truncate-end">
        {fit(report.header, width) || ' '}
      </Text>
      {lines.slice(start, start + rows).map((line, index) => (
        <Text key={start + index} wrap="truncate-end">
          {line.text || ' '}
        </Text>
      ))}
    </Box>
  )
}
