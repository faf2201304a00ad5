/**
 * The dashboard's pure reducer (the state and its events are in model.ts): one small
 * reducer per overlay or concern, each answering the events it owns and leaving the others
 * (undefined). The order settles the one event several own: `close` is refused by a required
 * scope picker and by a running action before it closes whatever else is open.
 */
import { reduceRequest } from './reducers/request.js'
import { reduceFilter } from './reducers/filter.js'
import { reducePanels } from './reducers/panels.js'
import { reduceRefresh } from './reducers/refresh.js'
import { reduceReports } from './reducers/reports.js'
import { reduceScopes } from './reducers/scopes.js'
import type { DashboardEvent, DashboardState } from './model.js'

export { PANELS, type PanelId } from './panels.js'
export type { RowState } from './selection.js'
export * from './model.js'

const REDUCERS = [reduceRefresh, reduceScopes, reduceRequest, reduceFilter, reduceReports, reducePanels] as const

/** The state after `event`. */
export function reduce(state: DashboardState, event: DashboardEvent): DashboardState {
  for (const reducer of REDUCERS) {
    const next = reducer(state, event)
    if (next !== undefined) return next
  }
  // quit, and events no reducer owns, change nothing here (the runner acts on quit).
  return state
}
