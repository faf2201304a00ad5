/**
 * The action overlays: r / R / x / X ask a confirmation (which takes the operator's reason, kept on
 * each changed record as `--reason` does), enter runs it, esc cancels or stops it, and its outcome
 * leaves a notice.
 */
import { DASHBOARD_LIMITS } from '../limits.js'
import { act, outcomeNotice } from '../state-actions.js'
import { notice, type DashboardEvent, type DashboardState } from '../state-model.js'

export function reduceAction(state: DashboardState, event: DashboardEvent): DashboardState | undefined {
  const overlay = state.overlay
  switch (event.type) {
    case 'act':
      return act(state, event.intent, event.all)
    case 'reasonInput':
      if (overlay.type !== 'confirm') return state
      return {
        ...state,
        overlay: {
          ...overlay,
          reason: (overlay.reason + event.text.replace(/[\x00-\x1f\x7f]/g, '')).slice(0, DASHBOARD_LIMITS.reasonLengthMax),
        },
      }
    case 'reasonErase':
      return overlay.type === 'confirm' ? { ...state, overlay: { ...overlay, reason: overlay.reason.slice(0, -1) } } : state
    case 'confirm': {
      if (overlay.type !== 'confirm') return state
      const reason = overlay.reason.trim()
      const request = reason === '' ? overlay.request : { ...overlay.request, reason }
      return { ...state, overlay: { type: 'running', request, done: 0, total: request.count } }
    }
    case 'cancel':
      if (overlay.type === 'confirm') return notice({ ...state, overlay: { type: 'none' } }, 'info', 'cancelled: nothing was changed')
      if (overlay.type === 'running') return notice(state, 'info', 'stopping after the current record…')
      return state
    case 'progress':
      return overlay.type === 'running' ? { ...state, overlay: { ...overlay, done: event.done, total: event.total } } : state
    case 'actionDone':
      return { ...state, overlay: { type: 'none' }, notice: { ...outcomeNotice(event.outcome, state), at: event.at } }
    case 'actionFailed':
      return {
        ...state,
        overlay: { type: 'none' },
        notice: { tone: 'error', text: `${event.request.verb} failed: ${event.message}`, at: event.at },
      }
    case 'close':
      return overlay.type === 'running' ? state : undefined
    default:
      return undefined
  }
}
