/**
 * Active leases: the records a replica is working on, with their owner and fencing token, and
 * when the lease expires, counting down between refreshes. A lease past its expiry (its holder
 * died or froze; the next sweep reclaims it) is marked with ! and highlighted.
 */
import type { LeaseView } from '../../operator/instances.js'
import { duration } from './format.js'
import type { RowState } from '../state/selection.js'
import type { Theme } from './theme.js'
import { ListTable, type TableColumn } from './ListTable.js'
import type { PanelFrame } from './panel-frame.js'

export interface LeasesPanelProps extends PanelFrame {
  leases: LeaseView[]
  /** The text filter in use ('' for none). */
  filter: string
}

/** Kind, id, chat, owner, fencing token, and the countdown to expiry at the backend's clock `now`. */
function columnsAt(now: number): TableColumn<LeaseView>[] {
  return [
    { min: 6, cell: (lease) => lease.kind },
    { min: 10, grow: 3, max: 40, cell: (lease) => lease.id },
    { min: 6, grow: 1, max: 18, cell: (lease) => lease.chatId },
    { min: 8, grow: 2, max: 32, cell: (lease) => lease.owner },
    { min: 8, max: 14, cell: (lease) => `token ${lease.token}` },
    {
      min: 20,
      align: 'right',
      cell: (lease) => {
        const left = lease.expiresAt - now
        return left > 0 ? `expires in ${duration(left)}` : `! expired ${duration(-left)} ago`
      },
    },
  ]
}

export function LeasesPanel({
  number,
  unknown,
  title,
  leases,
  filter,
  row: selection,
  focused,
  height,
  width,
  now,
  theme,
}: LeasesPanelProps) {
  const expired = leases.filter((lease) => lease.expiresAt <= now).length
  const summary =
    leases.length === 0
      ? (unknown ?? (filter ? `none match "${filter}"` : 'none'))
      : `${leases.length}${expired > 0 ? ` · ${expired} past expiry (!)` : ''}${filter ? ` · filter "${filter}"` : ''}`
  return (
    <ListTable
      number={number}
      title={title}
      summary={summary}
      items={leases}
      columns={columnsAt(now)}
      keyOf={(lease) => `${lease.kind}/${lease.id}`}
      toneOf={(lease) => (lease.expiresAt - now > 0 ? undefined : 'warn')}
      selected={selection.index}
      focused={focused}
      height={height}
      width={width}
      theme={theme}
    />
  )
}
