/**
 * What an event asks the world to do, decided purely from the state before and after it: refresh
 * now (the query changed, the view resumed, an action finished), read a record's detail, run a
 * confirmed action or stop it, list the scopes, quit. The effect runner does them and reports back
 * with events.
 */
import type { OperatorRequest } from './requests.js'
import { queryOf, type DashboardEvent, type DashboardState, type DetailTarget } from './reduce.js'

export type Effect =
  | { type: 'refresh' }
  | { type: 'loadDetail'; target: DetailTarget }
  | { type: 'run'; request: OperatorRequest }
  | { type: 'cancelRun' }
  | { type: 'loadScopes' }
  | { type: 'quit' }

/** The effect of `event`, which turned `before` into `after` (undefined: none). */
export function effectOf(before: DashboardState, event: DashboardEvent, after: DashboardState): Effect | undefined {
  if (event.type === 'quit') return { type: 'quit' }
  // The running overlay's request carries the reason typed into the confirmation.
  if (event.type === 'confirm' && before.overlay.type === 'confirm' && after.overlay.type === 'running')
    return { type: 'run', request: after.overlay.request }
  if (event.type === 'cancel' && before.overlay.type === 'running') return { type: 'cancelRun' }
  const detail =
    after.overlay.type === 'detail' && after.overlay.content === undefined && after.overlay.error === undefined ? after.overlay : undefined
  if (detail && before.overlay !== after.overlay && before.overlay.type !== 'detail') return { type: 'loadDetail', target: detail.target }
  const listing = after.overlay.type === 'scopes' && after.overlay.scopes === undefined && after.overlay.error === undefined
  if (listing && (event.type === 'scopesOpen' || event.type === 'scopesNeeded') && before.overlay !== after.overlay)
    return { type: 'loadScopes' }
  if (event.type === 'requestDone' || event.type === 'requestFailed') return { type: 'refresh' }
  if (before.paused && !after.paused) return { type: 'refresh' }
  // The source resolves the scope and reads the snapshot in one go: no second refresh for those.
  if (event.type !== 'snapshot' && event.type !== 'scopeResolved' && queryChanged(before, after)) return { type: 'refresh' }
  return undefined
}

function queryChanged(before: DashboardState, after: DashboardState): boolean {
  const a = queryOf(before)
  const b = queryOf(after)
  if (!b) return false
  if (!a) return true
  return (
    a.scope !== b.scope ||
    a.filter !== b.filter ||
    (Object.keys(b.pages) as (keyof typeof b.pages)[]).some((panel) => a.pages[panel] !== b.pages[panel])
  )
}
