/** The scope picker: every scope of the backend with its totals (from the index counts). */
import { Box, Text } from 'ink'
import { columnWidths, compact, fit, row, type ColumnSpec } from '../format.js'
import { windowStart } from '../layout.js'
import type { DashboardState } from '../state.js'
import type { Theme } from '../theme.js'
import { ListRow } from './ListRow.js'

export interface ScopePickerProps {
  picker: Extract<DashboardState['overlay'], { type: 'scopes' }>
  current: string | undefined
  height: number
  width: number
  theme: Theme
}

const COLUMNS: ColumnSpec[] = [{ min: 16, grow: 1 }, { min: 9 }, { min: 10 }, { min: 8 }, { min: 12 }]

export function ScopePicker({ picker, current, height, width, theme }: ScopePickerProps) {
  const scopes = picker.scopes ?? []
  const rows = Math.max(0, height - 1)
  const start = windowStart(scopes.length, picker.index, rows)
  const widths = columnWidths(width - 2, COLUMNS)
  const why = picker.required ? 'the backend holds several scopes: choose one' : 'switch scope'
  const status = picker.error ? `✖ ${picker.error} (r reads again)` : picker.scopes === undefined ? 'reading scopes…' : scopes.length === 0 ? 'this backend holds no scopes yet' : ''
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      <Text bold color={theme.tone('focus')} wrap="truncate-end">
        {fit(`▶ Scopes · ${why}`, width)}
      </Text>
      {status ? (
        <Text color={theme.tone(picker.error ? 'error' : 'muted')} wrap="truncate-end">
          {fit(status, width)}
        </Text>
      ) : null}
      {scopes.slice(start, start + rows).map((summary, offset) => {
        const text = row(
          [`${summary.scope}${summary.scope === current ? ' (shown)' : ''}`, `inbox ${compact(summary.inbox)}`, `outbox ${compact(summary.outbox)}`, `dead ${compact(summary.dead)}`, `instances ${compact(summary.instances)}`],
          widths,
          COLUMNS,
        )
        return <ListRow key={summary.scope} text={text} selected={start + offset === picker.index} focused width={width} theme={theme} />
      })}
    </Box>
  )
}
