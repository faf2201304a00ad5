/** A report (dead letters by error, the retry queue) covering the panels, scrolled by the offset. */
import { Box, Text } from 'ink'
import { fit } from './format.js'
import type { Report } from './report-lines.js'
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
  const start = Math.max(0, Math.min(offset, report.rows.length - rows))
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      <Text bold color={theme.tone('focus')} wrap="truncate-end">
        {fit(`▶ ${report.title}`, width)}
      </Text>
      <Text color={theme.tone('muted')} wrap="truncate-end">
        {fit(report.header, width) || ' '}
      </Text>
      {report.rows.slice(start, start + rows).map((line, index) => (
        <Text key={start + index} wrap="truncate-end">
          {fit(line, width)}
        </Text>
      ))}
    </Box>
  )
}
