/** The five panels, sharing the lines they are given (the focused one first). */
import { DEAD_PANELS } from '../snapshot.js'
import { panelHeights } from '../layout.js'
import { PANEL_TITLES, PANELS, type PanelId } from '../selection.js'
import { clockTime } from '../format.js'
import { backendNow, type DashboardState } from '../state.js'
import type { Theme } from '../theme.js'
import { DeadLettersPanel } from './DeadLettersPanel.js'
import { InstancesPanel } from './InstancesPanel.js'
import { LeasesPanel } from './LeasesPanel.js'

export interface PanelsProps {
  state: DashboardState
  /** Lines for all five. */
  height: number
  width: number
  theme: Theme
}

export function Panels({ state, height, width, theme }: PanelsProps) {
  const { snapshot } = state
  const now = backendNow(state)
  const wanted = {
    instances: snapshot?.instances.length ?? 0,
    leases: snapshot?.leases.length ?? 0,
    ...Object.fromEntries(DEAD_PANELS.map((panel) => [panel, snapshot?.pages[panel].records.length ?? 0])),
  } as Record<PanelId, number>
  const heights = panelHeights(height, state.focus, wanted)
  const unknown = unknownReason(state)
  const common = (panel: PanelId) => ({
    unknown,
    number: PANELS.indexOf(panel) + 1,
    row: state.rows[panel],
    focused: state.focus === panel,
    height: heights[panel],
    width,
    now,
    theme,
  })
  return (
    <>
      {PANELS.filter((panel) => heights[panel] > 0).map((panel) => {
        if (panel === 'instances')
          return <InstancesPanel key={panel} instances={snapshot?.instances ?? []} filter={state.filter} {...common(panel)} />
        if (panel === 'leases') return <LeasesPanel key={panel} leases={snapshot?.leases ?? []} filter={state.filter} {...common(panel)} />
        const counts = panel === 'inboxDead' ? snapshot?.counts.inbox : snapshot?.counts.outbox
        return (
          <DeadLettersPanel
            key={panel}
            title={PANEL_TITLES[panel]}
            page={snapshot?.pages[panel]}
            total={counts ? (counts[panel === 'unknown' ? 'unknown' : 'dead'] ?? 0) : undefined}
            pagesBefore={state.pageStacks[panel].length}
            filter={state.filter}
            {...common(panel)}
          />
        )
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
