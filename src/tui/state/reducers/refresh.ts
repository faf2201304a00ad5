/** Refreshes and the clock: a snapshot that arrived, a refresh that failed, a tick; and the story told beside. */
import type { Cursor } from '../../../operator/records.js'
import { DASHBOARD_LIMITS } from '../../limits.js'
import { advanceRates } from '../rates.js'
import { reconcileRows } from '../selection.js'
import { DEAD_PANELS, type Snapshot, type SnapshotQuery } from '../../io/snapshot.js'
import { queryOf, type DashboardEvent, type DashboardState } from '../model.js'
import { rememberLostRuns } from '../../views/instance-rows.js'

export function reduceRefresh(state: DashboardState, event: DashboardEvent): DashboardState | undefined {
  switch (event.type) {
    case 'snapshot':
      return arrived(state, event.snapshot, event.query, event.receivedAt)
    case 'refreshFailed': {
      const failure = state.failure
      return {
        ...state,
        failure: {
          message: event.message,
          at: event.at,
          since: failure?.since ?? event.at,
          count: (failure?.count ?? 0) + 1,
          retryAt: event.at + event.retryInMs,
        },
      }
    }
    case 'tick':
      return {
        ...state,
        clock: event.at,
        notice: state.notice && event.at - state.notice.at >= DASHBOARD_LIMITS.noticeMs ? undefined : state.notice,
      }
    case 'story':
      return { ...state, story: event.text }
    case 'togglePause':
      return { ...state, paused: !state.paused }
    default:
      return undefined
  }
}

/** A refresh arrived: keep it if it answers the current query, advance the rates, keep the selections. */
function arrived(state: DashboardState, fresh: Snapshot, query: SnapshotQuery, receivedAt: number): DashboardState {
  // A refresh that started before a scope switch, a new filter or a page turn answers another question.
  if (state.paused || !sameQuery(queryOf(state), query)) return state
  // A run that died stays listed a while after its successor stopped (the demo's crash does).
  const remembered = state.snapshot?.scope === fresh.scope ? state.snapshot.lostRuns : []
  const snapshot = { ...fresh, lostRuns: rememberLostRuns(remembered, fresh.lostRuns, fresh.at) }
  const { memory, sample } = advanceRates(state.rates, snapshot)
  const history = sample ? [...state.history, sample].slice(-DASHBOARD_LIMITS.historyMax) : state.history
  return {
    ...state,
    snapshot,
    rates: memory,
    history,
    rows: reconcileRows(state.rows, snapshot),
    lastRefreshAt: receivedAt,
    clock: Math.max(state.clock, receivedAt),
    failure: undefined,
  }
}

function sameQuery(a: SnapshotQuery | undefined, b: SnapshotQuery): boolean {
  if (!a || a.scope !== b.scope || a.filter !== b.filter) return false
  return DEAD_PANELS.every((panel) => cursorKey(a.pages[panel]) === cursorKey(b.pages[panel]))
}

function cursorKey(cursor: Cursor | undefined): string {
  return cursor ? `${cursor.lane}\u0000${cursor.stateTime}\u0000${cursor.key}` : ''
}
