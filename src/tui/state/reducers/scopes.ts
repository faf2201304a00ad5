/** The scope picker overlay, and a scope resolved or chosen: nothing seen so far applies to a new scope. */
import { DASHBOARD_LIMITS } from '../../limits.js'
import { emptyRows } from '../selection.js'
import { emptyStacks, notice, type DashboardEvent, type DashboardState } from '../model.js'

export function reduceScopes(state: DashboardState, event: DashboardEvent): DashboardState | undefined {
  const overlay = state.overlay
  switch (event.type) {
    case 'scopeResolved':
      if (state.scope === event.scope) return state
      return { ...withScope(state, event.scope), overlay: overlay.type === 'scopes' && overlay.required ? { type: 'none' } : overlay }
    case 'scopesNeeded':
      return overlay.type === 'scopes'
        ? state
        : { ...state, overlay: { type: 'scopes', scopes: undefined, index: 0, error: undefined, required: true } }
    case 'scopesOpen': {
      // Again while the picker is open (r): list the scopes again, still required if it was.
      const required = overlay.type === 'scopes' && overlay.required
      return { ...state, overlay: { type: 'scopes', scopes: undefined, index: 0, error: undefined, required } }
    }
    case 'scopesLoaded': {
      if (overlay.type !== 'scopes') return state
      const scopes = event.scopes.slice(0, DASHBOARD_LIMITS.scopesMax)
      const index = Math.max(
        0,
        scopes.findIndex((summary) => summary.scope === state.scope),
      )
      return { ...state, overlay: { ...overlay, scopes, index, error: undefined } }
    }
    case 'scopesFailed':
      return overlay.type === 'scopes' ? { ...state, overlay: { ...overlay, error: event.message } } : state
    case 'chooseScope': {
      const chosen = overlay.type === 'scopes' ? overlay.scopes?.[overlay.index] : undefined
      return chosen ? { ...withScope(state, chosen.scope), overlay: { type: 'none' } } : state
    }
    case 'close':
      return overlay.type === 'scopes' && overlay.required
        ? notice(state, 'info', 'choose a scope (↑↓ and enter), or q to quit')
        : undefined
    default:
      return undefined
  }
}

function withScope(state: DashboardState, scope: string): DashboardState {
  return {
    ...state,
    scope,
    snapshot: undefined,
    rows: emptyRows(),
    pageStacks: emptyStacks(),
    history: [],
    rates: undefined,
    lastRefreshAt: undefined,
  }
}
