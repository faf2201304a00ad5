/**
 * The selected row of each panel (the panels are in panels.ts). A selection follows its record by id across refreshes
 * (records move as a bot works), and falls back to the same position when its record left the
 * list (a replayed dead letter), so the next one is selected.
 */
import type { RecordSummary } from '../../operator/records.js'
import type { DeadPanelId, Snapshot } from '../io/snapshot.js'
import { PANEL_TABLE, PANELS, type PanelId } from './panels.js'

/** The selected row of a panel: its position, and the id of the row there. */
export interface RowState {
  index: number
  id: string | null
}

/** No row selected anywhere yet. */
export function emptyRows(): Record<PanelId, RowState> {
  return Object.fromEntries(PANELS.map((panel) => [panel, { index: 0, id: null }])) as Record<PanelId, RowState>
}

/** The ids of a panel's rows, in order. */
export function rowIdsOf(snapshot: Snapshot | undefined, panel: PanelId): string[] {
  return snapshot ? PANEL_TABLE[panel].rowIds(snapshot) : []
}

/** Each panel's selection after a refresh: the same id where it still is, else the same position. */
export function reconcileRows(rows: Record<PanelId, RowState>, snapshot: Snapshot): Record<PanelId, RowState> {
  const next = {} as Record<PanelId, RowState>
  for (const panel of PANELS) {
    const ids = rowIdsOf(snapshot, panel)
    const { index, id } = rows[panel]
    const found = id === null ? -1 : ids.indexOf(id)
    const at = found >= 0 ? found : Math.min(index, Math.max(0, ids.length - 1))
    next[panel] = { index: at, id: ids[at] ?? null }
  }
  return next
}

/** The selected record of a dead-letter panel. */
export function selectedRecord(
  snapshot: Snapshot | undefined,
  rows: Record<PanelId, RowState>,
  panel: DeadPanelId,
): RecordSummary | undefined {
  const id = rows[panel].id
  return id === null ? undefined : snapshot?.pages[panel].records.find((record) => record.id === id)
}
