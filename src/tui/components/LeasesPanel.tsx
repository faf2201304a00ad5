/**
 * Active leases: the records a replica is working on, with their owner and fencing token, and
 * when the lease expires, counting down between refreshes. A lease past its expiry (its holder
 * died or froze; the next sweep reclaims it) is marked with ! and highlighted.
 */
import { Box } from 'ink'
import type { LeaseView } from '../../cli/services/instances.js'
import { columnWidths, duration, row, type ColumnSpec } from '../format.js'
import { windowStart } from '../layout.js'
import type { RowState } from '../selection.js'
import type { Theme } from '../theme.js'
import { ListRow } from './ListRow.js'
import { PanelTitle } from './PanelTitle.js'

export interface LeasesPanelProps {
  number: number
  /** Set while nothing was read: why the figures are unknown (shown instead of an empty list). */
  unknown?: string | undefined
  leases: LeaseView[]
  /** The text filter in use ('' for none). */
  filter: string
  row: RowState
  focused: boolean
  height: number
  width: number
  /** The backend's clock now (estimated between refreshes), for the countdowns. */
  now: number
  theme: Theme
}

const COLUMNS: ColumnSpec[] = [
  { min: 6 },
  { min: 10, grow: 3, max: 40 },
  { min: 6, grow: 1, max: 18 },
  { min: 8, grow: 2, max: 32 },
  { min: 8, max: 14 },
  { min: 20, align: 'right' },
]

export function LeasesPanel({ number, unknown, leases, filter, row: selection, focused, height, width, now, theme }: LeasesPanelProps) {
  const expired = leases.filter((lease) => lease.expiresAt <= now).length
  const summary =
    leases.length === 0 ? (unknown ?? (filter ? `none match "${filter}"` : 'none')) : `${leases.length}${expired > 0 ? ` · ${expired} past expiry (!)` : ''}${filter ? ` · filter "${filter}"` : ''}`
  const rows = Math.max(0, height - 1)
  const start = windowStart(leases.length, selection.index, rows)
  const widths = columnWidths(width - 2, COLUMNS)
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      <PanelTitle number={number} title="Active leases" summary={summary} focused={focused} width={width} theme={theme} />
      {leases.slice(start, start + rows).map((lease, offset) => {
        const left = lease.expiresAt - now
        const expires = left > 0 ? `expires in ${duration(left)}` : `! expired ${duration(-left)} ago`
        const text = row([lease.kind, lease.id, lease.chatId, lease.owner, `token ${lease.token}`, expires], widths, COLUMNS)
        const id = `${lease.kind}/${lease.id}`
        return <ListRow key={id} text={text} selected={start + offset === selection.index} focused={focused} width={width} theme={theme} tone={left > 0 ? undefined : 'warn'} />
      })}
    </Box>
  )
}
