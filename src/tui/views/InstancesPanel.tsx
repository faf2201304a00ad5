/**
 * Instances: every replica that wrote a heartbeat into the scope, with its host, pid, the age of
 * its last heartbeat and its counters. One whose heartbeat stopped (it crashed, or froze) shows as
 * gone (✖) until its record is replaced; a bot that stopped gracefully removed its own. A run that
 * replaced one that died (same instanceId) has that run under it, lost (✖), with what it held.
 */
import { INSTANCE_SILENT_AFTER_MS, type InstanceView } from '../../operator/instances.js'
import type { PreviousRun } from '../../core/durability/journal/records.js'
import { compact, duration } from './format.js'
import type { RowState } from '../state/selection.js'
import type { Theme } from './theme.js'
import { ListTable, type TableColumn } from './ListTable.js'
import type { PanelFrame } from './panel-frame.js'
import { instanceRowId, instanceRows, lostRunText, type InstanceRow, type LostRun } from './instance-rows.js'

export interface InstancesPanelProps extends PanelFrame {
  instances: InstanceView[]
  /** Runs that died, as their successors told (see instance-rows.ts). @default [] */
  lostRuns?: LostRun[]
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
  lostRuns = [],
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
  const rows = instanceRows(instances, lostRuns)
  // The title says a crash in words: its row may be cut at 80 columns.
  const lost = lostRuns.map((run) => ` · ${lostRunText(run)} (✖ lost)`)
  const summary =
    rows.length === 0
      ? empty
      : `${live} live${silentCount > 0 ? ` · ${silentCount} silent (◌)` : ''}${gone > 0 ? ` · ${gone} gone (✖)` : ''}${lost.join('')}${filter ? ` · filter "${filter}"` : ''}`
  return (
    <ListTable
      number={number}
      title={title}
      summary={summary}
      items={rows}
      columns={columnsAt(now, silent)}
      keyOf={instanceRowId}
      toneOf={(row) => (row.type === 'lost' ? 'error' : silent(row.instance) ? 'warn' : row.instance.live ? undefined : 'error')}
      selected={selection.index}
      focused={focused}
      height={height}
      width={width}
      theme={theme}
    />
  )
}

/** Status, id, host:pid, the last beat's age, counters. Six characters for the status and twelve for the beat keep the counters on an 80-column row. */
function columnsAt(now: number, silent: (instance: InstanceView) => boolean): TableColumn<InstanceRow>[] {
  const of = (row: InstanceRow, cell: (instance: InstanceView) => string, lost: (run: PreviousRun) => string) =>
    row.type === 'lost' ? lost(row.lost.run) : cell(row.instance)
  return [
    {
      min: 6,
      cell: (row) =>
        of(
          row,
          (i) => (silent(i) ? '◌ late' : i.live ? '● live' : '✖ gone'),
          () => '✖ lost',
        ),
    },
    { min: 12, grow: 4, max: 40, cell: (row) => (row.type === 'lost' ? row.lost.instanceId : row.instance.instanceId) },
    {
      min: 10,
      grow: 1,
      max: 22,
      cell: (row) =>
        of(
          row,
          (i) => `${i.host}:${i.pid}`,
          (run) => `${run.host}:${run.pid}`,
        ),
    },
    {
      min: 12,
      cell: (row) =>
        of(
          row,
          (i) => `${silent(i) ? 'silent' : 'beat'} ${duration(now - i.lastBeatAt)}`,
          (run) => `beat ${duration(now - run.lastBeatAt)}`,
        ),
    },
    {
      min: 10,
      grow: 3,
      cell: (row) =>
        of(
          row,
          (i) => metricsOf(i) || '-',
          (run) => `held ${run.inboxTakenBack} in ${run.outboxTakenBack} out`,
        ),
    },
  ]
}

function metricsOf(instance: InstanceView): string {
  return SHOWN_METRICS.filter(([name]) => instance.metrics[name] !== undefined)
    .map(([name, label]) => `${label} ${compact(instance.metrics[name]!)}`)
    .join(' ')
}
