/** The scope picker: every scope of the backend with its totals (from the index counts). */
import { Box, Text } from 'ink'
import type { ScopeSummary } from '../../operator/scopes.js'
import { compact, fit } from './format.js'
import type { DashboardState } from '../state/reduce.js'
import type { Theme } from './theme.js'
import { TableRows, type TableColumn } from './ListTable.js'

export interface ScopePickerProps {
  picker: Extract<DashboardState['overlay'], { type: 'scopes' }>
  current: string | undefined
  height: number
  width: number
  theme: Theme
}

/** Scope (marked when it is the one shown), then its totals. */
function columnsFor(current: string | undefined): TableColumn<ScopeSummary>[] {
  return [
    { min: 16, grow: 1, cell: (summary) => `${summary.scope}${summary.scope === current ? ' (shown)' : ''}` },
    { min: 9, cell: (summary) => `inbox ${compact(summary.inbox)}` },
    { min: 10, cell: (summary) => `outbox ${compact(summary.outbox)}` },
    { min: 8, cell: (summary) => `dead ${compact(summary.dead)}` },
    { min: 12, cell: (summary) => `instances ${compact(summary.instances)}` },
  ]
}

export function ScopePicker({ picker, current, height, width, theme }: ScopePickerProps) {
  const scopes = picker.scopes ?? []
  const why = picker.required ? 'the backend holds several scopes: choose one' : 'switch scope'
  const status = picker.error
    ? `✖ ${picker.error} (r reads again)`
    : picker.scopes === undefined
      ? 'reading scopes…'
      : scopes.length === 0
        ? 'this backend holds no scopes yet'
        : ''
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
      <TableRows
        items={scopes}
        columns={columnsFor(current)}
        keyOf={(summary) => summary.scope}
        selected={picker.index}
        focused
        rows={Math.max(0, height - 1)}
        width={width}
        theme={theme}
      />
    </Box>
  )
}
