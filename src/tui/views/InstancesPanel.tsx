/**
 * Instances: every replica that wrote a heartbeat into the scope, with its host, pid, the age of
 * its last heartbeat and its counters. One whose heartbeat stopped (it crashed, or froze) shows as
 * gone (✖) until its record is replaced; a bot that stopped gracefully removed its own.
 */
import { INSTANCE_SILENT_AFTER_MS, type InstanceView } from '../../cli/services/instances.js'
import { compact, duration } from './format.js'
import type { RowState } from '../state/selection.js'
import type { Theme } from './theme.js'
import { ListTable, type TableColumn } from './ListTable.js'
import type { PanelFrame } from './panel-frame.js'

export interface InstancesPanelProps extends PanelFrame {
  instances: InstanceView[]
  /** The text filter in use ('' for none). */
  filter: string
}

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

export function InstancesPanel({
  number,
  unknown,
  title,
  instances,
  filter,
  row: selection,
  focused,
  height,
  width,
  now,
  theme,
}: InstancesPanelProps) {
  // Measured against the backend's clock now, not at the refresh: a beat that is late shows at once.
  const silent = (instance: InstanceView) => instance.live && now - instance.lastBeatAt > INSTANCE_SILENT_AFTER_MS
  const silentCount = instances.filter(silent).length
  const live = instances.filter((instance) => instance.live).length - silentCount
  const gone = instances.length - live - silentCount
  const empty = unknown ?? (filter ? `none match "${filter}"` : 'no heartbeat: no bot running in this scope')
  const summary =
    instances.length === 0
      ? empty
      : `${live} live${silentCount > 0 ? ` · ${silentCount} silent (◌)` : ''}${gone > 0 ? ` · ${gone} gone (✖)` : ''}${filter ? ` · filter "${filter}"` : ''}`
  return (
    <ListTable
      number={number}
      title={title}
      summary={summary}
      items={instances}
      columns={columnsAt(now, silent)}
      keyOf={(instance) => instance.instanceId}
      toneOf={(instance) => (silent(instance) ? 'warn' : instance.live ? undefined : 'error')}
      selected={selection.index}
      focused={focused}
      height={height}
      width={width}
      theme={theme}
    />
  )
}

/** Status, id, host:pid, the last beat's age, counters. Six characters for the status and twelve for the beat keep the counters on an 80-column row. */
function columnsAt(now: number, silent: (instance: InstanceView) => boolean): TableColumn<InstanceView>[] {
  return [
    { min: 6, cell: (instance) => (silent(instance) ? '◌ late' : instance.live ? '● live' : '✖ gone') },
    { min: 12, grow: 4, max: 40, cell: (instance) => instance.instanceId },
    { min: 10, grow: 1, max: 22, cell: (instance) => `${instance.host}:${instance.pid}` },
    { min: 12, cell: (instance) => `${silent(instance) ? 'silent' : 'beat'} ${duration(now - instance.lastBeatAt)}` },
    { min: 10, grow: 3, cell: (instance) => metricsOf(instance) || '-' },
  ]
}

function metricsOf(instance: InstanceView): string {
  return SHOWN_METRICS.filter(([name]) => instance.metrics[name] !== undefined)
    .map(([name, label]) => `${label} ${compact(instance.metrics[name]!)}`)
    .join(' ')
}
