/**
 * The dashboard's pure reducer (the state and its events are in state-model.ts): one small
 * reducer per overlay or concern, each answering the events it owns and leaving the others
 * (undefined). The order settles the one event several own: `close` is refused by a required
 * scope picker and by a running action before it closes whatever else is open.
 */
import { reduceAction } from './reducers/action.js'
import { reduceFilter } from './reducers/filter.js'
import { reducePanels } from './reducers/panels.js'
import { reduceRefresh } from './reducers/refresh.js'
import { reduceReports } from './reducers/reports.js'
import { reduceScopes } from './reducers/scopes.js'
import type { DashboardEvent, DashboardState } from './state-model.js'

export { PANELS, type PanelId, type RowState } from './selection.js'
export * from './state-model.js'

const REDUCERS = [reduceRefresh, reduceScopes, reduceAction, reduceFilter, reduceReports, reducePanels] as const

/** The state after `event`. */
export function reduce(state: DashboardState, event: DashboardEvent): DashboardState {
  for (const reducer of REDUCERS) {
    const next = reducer(state, event)
    if (next !== undefined) return next
  }
  // quit, and events no reducer owns, change nothing here (the runner acts on quit).
  return state
}
