/** The report overlays: dead letters grouped by error (e) and the retry queue (w), opened, scrolled and closed. */
import { clamp, type DashboardEvent, type DashboardState } from '../model.js'

export function reduceReports(state: DashboardState, event: DashboardEvent): DashboardState | undefined {
  const overlay = state.overlay
  switch (event.type) {
    case 'report':
      if (overlay.type === 'report' && overlay.report === event.report) return { ...state, overlay: { type: 'none' } }
      return overlay.type === 'none' || overlay.type === 'report'
        ? { ...state, overlay: { type: 'report', report: event.report, offset: 0 } }
        : state
    case 'moveRow':
    case 'moveRowTo': {
      if (overlay.type !== 'report') return undefined
      const by = event.type === 'moveRow' ? event.by : event.to === 'first' ? -Infinity : Infinity
      const rows = overlay.report === 'errors' ? (state.snapshot?.errorGroups.groups.length ?? 0) : (state.snapshot?.retryQueue.length ?? 0)
      return { ...state, overlay: { ...overlay, offset: clamp(overlay.offset + by, 0, Math.max(0, rows - 1)) } }
    }
    default:
      return undefined
  }
}
