/** The panels and the detail overlay: focus, rows, pages, opening a record and scrolling its detail. */
import { DASHBOARD_LIMITS } from '../../limits.js'
import { backendNow, clamp, notice, type DashboardEvent, type DashboardState } from '../model.js'
import { isDeadPanel, PANEL_TABLE, PANELS } from '../panels.js'
import { KEY_HELP } from '../key-help.js'
import { rowIdsOf } from '../selection.js'

export function reducePanels(state: DashboardState, event: DashboardEvent): DashboardState | undefined {
  switch (event.type) {
    case 'focus':
      return { ...state, focus: event.panel }
    case 'focusNext':
    case 'focusPrev': {
      const step = event.type === 'focusNext' ? 1 : PANELS.length - 1
      return { ...state, focus: PANELS[(PANELS.indexOf(state.focus) + step) % PANELS.length]! }
    }
    case 'moveRow':
      return moveRow(state, event.by)
    case 'moveRowTo':
      return moveRow(state, event.to === 'first' ? -Infinity : Infinity)
    case 'pageNext':
    case 'pagePrev':
      return turnPage(state, event.type === 'pageNext' ? 1 : -1)
    case 'open':
      return open(state)
    case 'detailLoaded':
    case 'detailFailed': {
      const overlay = state.overlay
      if (overlay.type !== 'detail' || overlay.target.id !== event.target.id || overlay.target.kind !== event.target.kind) return state
      return event.type === 'detailLoaded'
        ? { ...state, overlay: { ...overlay, content: event.content, error: undefined } }
        : { ...state, overlay: { ...overlay, error: event.message } }
    }
    case 'close':
      return { ...state, overlay: { type: 'none' } }
    case 'help':
      return { ...state, overlay: state.overlay.type === 'help' ? { type: 'none' } : { type: 'help', offset: 0 } }
    default:
      return undefined
  }
}

function moveRow(state: DashboardState, by: number): DashboardState {
  const overlay = state.overlay
  if (overlay.type === 'detail') {
    const lines = overlay.content?.lines.length ?? 0
    return { ...state, overlay: { ...overlay, offset: clamp(overlay.offset + by, 0, Math.max(0, lines - 1)) } }
  }
  if (overlay.type === 'help') return { ...state, overlay: { ...overlay, offset: clamp(overlay.offset + by, 0, KEY_HELP.length - 1) } }
  if (overlay.type === 'scopes') {
    const count = overlay.scopes?.length ?? 0
    return { ...state, overlay: { ...overlay, index: clamp(overlay.index + by, 0, Math.max(0, count - 1)) } }
  }
  const ids = rowIdsOf(state.snapshot, state.focus)
  if (ids.length === 0) return state
  const index = clamp(state.rows[state.focus].index + by, 0, ids.length - 1)
  return { ...state, rows: { ...state.rows, [state.focus]: { index, id: ids[index]! } } }
}

/** PgDn / PgUp: the next or previous page of a dead-letter panel; ten rows in the other panels. */
function turnPage(state: DashboardState, direction: 1 | -1): DashboardState {
  const panel = state.focus
  if (state.overlay.type === 'detail' || !isDeadPanel(panel)) return moveRow(state, direction * 10)
  const stack = state.pageStacks[panel]
  const page = state.snapshot?.pages[panel]
  if (direction === 1) {
    if (!page?.next) return moveRow(state, Infinity)
    const next = [...stack, page.next].slice(-DASHBOARD_LIMITS.pageStackMax)
    return { ...state, pageStacks: { ...state.pageStacks, [panel]: next }, rows: { ...state.rows, [panel]: { index: 0, id: null } } }
  }
  if (stack.length === 0) return moveRow(state, -Infinity)
  return {
    ...state,
    pageStacks: { ...state.pageStacks, [panel]: stack.slice(0, -1) },
    rows: { ...state.rows, [panel]: { index: 0, id: null } },
  }
}

/** Enter: the selected row's detail (an instance's at once; a record's once the `show` service read it). */
function open(state: DashboardState): DashboardState {
  const panel = state.focus
  const { snapshot } = state
  const id = state.rows[panel].id
  if (!snapshot || id === null) return notice(state, 'info', 'nothing selected here')
  const detail = PANEL_TABLE[panel].detailOf(snapshot, id, backendNow(state))
  if (!detail) return state
  const { kind, content } = detail
  return { ...state, overlay: { type: 'detail', target: { panel, kind, id: detail.id }, content, error: undefined, offset: 0 } }
}
