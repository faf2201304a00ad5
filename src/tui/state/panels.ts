/**
 * The panel table: every panel of the dashboard, in the order Tab visits them and the digit keys
 * name them, with what the state needs of each: its title, the ids of its rows in a snapshot, and
 * what Enter opens on a row. A panel is one entry here and its view, the entry of the same name in
 * `PANEL_VIEWS` (views/Panels.tsx); the state stays free of Ink, so the two are apart, and the
 * types make each table name every panel.
 */
import { DEAD_LANES, type DeadPanelId, type Snapshot } from '../io/snapshot.js'
import { instanceDetail, lostRunDetail, type DetailContent } from '../views/detail-lines.js'
import { instanceRowId, instanceRows } from '../views/instance-rows.js'

/** What Enter opens: a record or an instance, with its content when the snapshot already holds it. */
export interface PanelDetail {
  kind: 'inbox' | 'outbox' | 'instances'
  id: string
  /** Undefined: the effect runner reads it (a record's detail, through the `show` service). */
  content: DetailContent | undefined
}

/** One panel, as the state sees it. */
export interface PanelSpec {
  title: string
  /** The ids of its rows, in order (a selection follows its row by id). */
  rowIds(snapshot: Snapshot): string[]
  /** What Enter opens on the row `id` (undefined: that row is gone). */
  detailOf(snapshot: Snapshot, id: string, now: number): PanelDetail | undefined
}

/** A dead-letter panel: one lane of the state-time index, one page of it at a time. */
function deadLetters(panel: DeadPanelId, title: string): PanelSpec {
  return {
    title,
    rowIds: (snapshot) => snapshot.pages[panel].records.map((record) => record.id),
    detailOf(snapshot, id) {
      const record = snapshot.pages[panel].records.find((candidate) => candidate.id === id)
      return record && { kind: record.kind, id: record.id, content: undefined }
    },
  }
}

export const PANEL_TABLE = {
  instances: {
    title: 'Instances',
    rowIds: (snapshot) => instanceRows(snapshot.instances, snapshot.lostRuns).map(instanceRowId),
    detailOf(snapshot, id, now) {
      const row = instanceRows(snapshot.instances, snapshot.lostRuns).find((candidate) => instanceRowId(candidate) === id)
      if (row?.type === 'lost') return { kind: 'instances', id: row.lost.instanceId, content: lostRunDetail(row.lost, now) }
      return row && { kind: 'instances', id: row.instance.instanceId, content: instanceDetail(row.instance, now) }
    },
  },
  leases: {
    title: 'Active leases',
    rowIds: (snapshot) => snapshot.leases.map((lease) => `${lease.kind}/${lease.id}`),
    detailOf(snapshot, id) {
      const lease = snapshot.leases.find((candidate) => `${candidate.kind}/${candidate.id}` === id)
      return lease && { kind: lease.kind, id: lease.id, content: undefined }
    },
  },
  inboxDead: deadLetters('inboxDead', 'Inbox dead letters'),
  outboxDead: deadLetters('outboxDead', 'Outbox dead letters'),
  unknown: deadLetters('unknown', 'Unknown sends (outcome unknown)'),
} satisfies Record<string, PanelSpec>

export type PanelId = keyof typeof PANEL_TABLE
/** The panels, in the order Tab visits them and the digit keys name them. */
export const PANELS = Object.keys(PANEL_TABLE) as PanelId[]

/** Whether a panel lists dead letters (or unknown sends), which the requests work on. */
export function isDeadPanel(panel: PanelId): panel is DeadPanelId {
  return panel in DEAD_LANES
}

/** The records a dead-letter panel counts in all (its lane's state in the index counts). */
export function deadTotal(snapshot: Snapshot, panel: DeadPanelId): number {
  const lane = DEAD_LANES[panel]
  return snapshot.counts[lane.kind][lane.state] ?? 0
}
