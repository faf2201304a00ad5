/**
 * Instances: every replica that wrote a heartbeat into the scope, with its host, pid, the age of
 * its last heartbeat and its counters. One whose heartbeat stopped (it crashed, or froze) shows as
 * gone (✖) until its record is replaced; a bot that stopped gracefully removed its own.
 */
import { Box } from 'ink'
import { INSTANCE_SILENT_AFTER_MS, type InstanceView } from '../../cli/services/instances.js'
import { columnWidths, compact, duration, row, type ColumnSpec } from '../format.js'
import { windowStart } from '../layout.js'
import type { RowState } from '../selection.js'
import type { Theme } from '../theme.js'
import { ListRow } from './ListRow.js'
import { PanelTitle } from './PanelTitle.js'

export interface InstancesPanelProps {
  number: number
  /** Set while nothing was read: why the figures are unknown (shown instead of an empty list). */
  unknown?: string | undefined
  instances: InstanceView[]
  /** The text filter in use ('' for none). */
  filter: string
  row: RowState
  focused: boolean
  height: number
  width: number
  now: number
  theme: Theme
}

const COLUMNS: ColumnSpec[] = [
  { min: 6 },
  { min: 12, grow: 4, max: 40 },
  { min: 10, grow: 1, max: 22 },
  { min: 12 },
  { min: 10, grow: 3 },
]

/** The counters a row has room for, by short name (the detail shows all of them). */
const SHOWN_METRICS: [name: string, label: string][] = [
  ['inboundJournaled', 'in'],
  ['outboxJournaled', 'out'],
  ['inboundDead', 'dead in'],
  ['outboxDead', 'dead out'],
  ['outboxRetried', 'retried'],
  ['inboundReplayed', 'replayed'],
  ['outboxAmbiguous', 'unknown'],
  ['staleLeases', 'stale'],
]

export function InstancesPanel({ number, unknown, instances, filter, row: selection, focused, height, width, now, theme }: InstancesPanelProps) {
  // Measured against the backend's clock now, not at the refresh: a beat that is late shows at once.
  const silent = (instance: InstanceView) => instance.live && now - instance.lastBeatAt > INSTANCE_SILENT_AFTER_MS
  const silentCount = instances.filter(silent).length
  const live = instances.filter((instance) => instance.live).length - silentCount
  const gone = instances.length - live - silentCount
  const empty = unknown ?? (filter ? `none match "${filter}"` : 'no heartbeat: no bot running in this scope')
  const summary = instances.length === 0 ? empty : `${live} live${silentCount > 0 ? ` · ${silentCount} silent (◌)` : ''}${gone > 0 ? ` · ${gone} gone (✖)` : ''}${filter ? ` · filter "${filter}"` : ''}`
  const rows = Math.max(0, height - 1)
  const start = windowStart(instances.length, selection.index, rows)
  const widths = columnWidths(width - 2, COLUMNS)
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      <PanelTitle number={number} title="Instances" summary={summary} focused={focused} width={width} theme={theme} />
      {instances.slice(start, start + rows).map((instance, offset) => {
        const metrics = SHOWN_METRICS.filter(([name]) => instance.metrics[name] !== undefined)
          .map(([name, label]) => `${label} ${compact(instance.metrics[name]!)}`)
          .join(' ')
        const quiet = silent(instance)
        // Six characters for the status and twelve for the beat keep the counters on an 80-column row.
        const status = quiet ? '◌ late' : instance.live ? '● live' : '✖ gone'
        const beat = `${quiet ? 'silent' : 'beat'} ${duration(now - instance.lastBeatAt)}`
        const text = row([status, instance.instanceId, `${instance.host}:${instance.pid}`, beat, metrics || '-'], widths, COLUMNS)
        return (
          <ListRow key={instance.instanceId} text={text} selected={start + offset === selection.index} focused={focused} width={width} theme={theme} tone={quiet ? 'warn' : instance.live ? undefined : 'error'} />
        )
      })}
    </Box>
  )
}
