/** The filter line overlay: typing a filter, and applying or clearing it (the lists start again from their first pages). */
import { DASHBOARD_LIMITS } from '../../limits.js'
import { emptyRows } from '../selection.js'
import { emptyStacks, type DashboardEvent, type DashboardState } from '../model.js'

export function reduceFilter(state: DashboardState, event: DashboardEvent): DashboardState | undefined {
  const overlay = state.overlay
  switch (event.type) {
    case 'filterStart':
      return { ...state, overlay: { type: 'filter', draft: state.filter } }
    case 'filterInput':
      if (overlay.type !== 'filter') return state
      return {
        ...state,
        overlay: {
          type: 'filter',
          draft: (overlay.draft + event.text.replace(/[\x00-\x1f\x7f]/g, '')).slice(0, DASHBOARD_LIMITS.filterLengthMax),
        },
      }
    case 'filterErase':
      return overlay.type === 'filter' ? { ...state, overlay: { type: 'filter', draft: overlay.draft.slice(0, -1) } } : state
    case 'filterApply':
      return overlay.type === 'filter' ? { ...withFilter(state, overlay.draft.trim()), overlay: { type: 'none' } } : state
    case 'dismiss':
      return state.filter !== '' ? withFilter(state, '') : { ...state, notice: undefined }
    default:
      return undefined
  }
}

function withFilter(state: DashboardState, filter: string): DashboardState {
  if (filter === state.filter) return state
  return { ...state, filter, rows: emptyRows(), pageStacks: emptyStacks() }
}
