/**
 * The panels, sharing the lines they are given (the focused one first). Each panel is drawn by its
 * entry in `PANEL_VIEWS`; what the state knows of it (title, rows, what Enter opens) is its entry
 * in `PANEL_TABLE` (state/panels.ts).
 */
import { Fragment, type ReactElement } from 'react'
import { PANEL_TABLE, PANELS, deadTotal, type PanelId } from '../state/panels.js'
import type { DeadPanelId } from '../io/snapshot.js'
import { backendNow, type DashboardState } from '../state/reduce.js'
import { clockTime } from './format.js'
import { panelHeights } from './layout.js'
import type { PanelFrame } from './panel-frame.js'
import type { Theme } from './theme.js'
import { DeadLettersPanel } from './DeadLettersPanel.js'
import { InstancesPanel } from './InstancesPanel.js'
import { LeasesPanel } from './LeasesPanel.js'

export interface PanelsProps {
  state: DashboardState
  /** Lines for all of them. */
  height: number
  width: number
  theme: Theme
}

type PanelView = (state: DashboardState, frame: PanelFrame) => ReactElement

/** A dead-letter panel's view: its page, and where the page sits in the whole lane. */
function deadLetters(panel: DeadPanelId): PanelView {
  return (state, frame) => (
    <DeadLettersPanel
      page={state.snapshot?.pages[panel]}
      total={state.snapshot ? deadTotal(state.snapshot, panel) : undefined}
      pagesBefore={state.pageStacks[panel].length}
      filter={state.filter}
      {...frame}
    />
  )
}

/** The view of each panel of `PANEL_TABLE`. */
export const PANEL_VIEWS: Record<PanelId, PanelView> = {
  instances: (state, frame) => (
    <InstancesPanel
      instances={state.snapshot?.instances ?? []}
      lostRuns={state.snapshot?.lostRuns ?? []}
      filter={state.filter}
      {...frame}
    />
  ),
  leases: (state, frame) => <LeasesPanel leases={state.snapshot?.leases ?? []} filter={state.filter} {...frame} />,
  inboxDead: deadLetters('inboxDead'),
  outboxDead: deadLetters('outboxDead'),
  unknown: deadLetters('unknown'),
}

export function Panels({ state, height, width, theme }: PanelsProps) {
  const { snapshot } = state
  const now = backendNow(state)
  const wanted = Object.fromEntries(PANELS.map((panel) => [panel, snapshot ? PANEL_TABLE[panel].rowIds(snapshot).length : 0])) as Record<
    PanelId,
    number
  >
  const heights = panelHeights(height, state.focus, wanted)
  const unknown = unknownReason(state)
  return (
    <>
      {PANELS.filter((panel) => heights[panel] > 0).map((panel) => {
        const frame: PanelFrame = {
          unknown,
          number: PANELS.indexOf(panel) + 1,
          title: PANEL_TABLE[panel].title,
          row: state.rows[panel],
          focused: state.focus === panel,
          height: heights[panel],
          width,
          now,
          theme,
        }
        return <Fragment key={panel}>{PANEL_VIEWS[panel](state, frame)}</Fragment>
      })}
    </>
  )
}

/**
 * Why the panels have nothing to show (undefined once a refresh arrived). An empty list would
 * state a fact ("no bot running", "0 dead letters") the dashboard does not know.
 */
export function unknownReason(state: DashboardState): string | undefined {
  if (state.snapshot) return undefined
  if (state.failure) return `unknown since ${clockTime(state.failure.since)}: the backend does not answer (see above)`
  return 'unknown: not read yet'
}
