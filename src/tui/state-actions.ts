/**
 * What Enter, r / R and x / X do to the dashboard's state (pure, part of the reducer): open the
 * selected row's detail, or ask the confirmation of a request (or say why there is none), and the
 * notice an action's outcome leaves.
 */
import { INSTANCE_SILENT_AFTER_MS } from '../cli/services/instances.js'
import type { ActionOutcome } from './actions.js'
import { instanceDetail } from './detail-lines.js'
import { pastTense, requestFor } from './requests.js'
import { isDeadPanel, selectedRecord } from './selection.js'
import { backendNow, notice, type DashboardState, type DetailTarget, type Notice } from './state-model.js'

/** Enter: the selected row's detail (an instance's at once; a record's once the `show` service read it). */
export function open(state: DashboardState): DashboardState {
  const panel = state.focus
  const snapshot = state.snapshot
  const row = state.rows[panel]
  if (!snapshot || row.id === null) return notice(state, 'info', 'nothing selected here')
  if (panel === 'instances') {
    const instance = snapshot.instances.find((candidate) => candidate.instanceId === row.id)
    if (!instance) return state
    const target: DetailTarget = { panel, kind: 'instances', id: instance.instanceId }
    return {
      ...state,
      overlay: { type: 'detail', target, content: instanceDetail(instance, backendNow(state)), error: undefined, offset: 0 },
    }
  }
  if (panel === 'leases') {
    const lease = snapshot.leases.find((candidate) => `${candidate.kind}/${candidate.id}` === row.id)
    if (!lease) return state
    return {
      ...state,
      overlay: { type: 'detail', target: { panel, kind: lease.kind, id: lease.id }, content: undefined, error: undefined, offset: 0 },
    }
  }
  const record = selectedRecord(state.snapshot, state.rows, panel)
  if (!record) return state
  return {
    ...state,
    overlay: { type: 'detail', target: { panel, kind: record.kind, id: record.id }, content: undefined, error: undefined, offset: 0 },
  }
}

/** r / R / x / X: the confirmation of a request, or why there is none. */
export function act(state: DashboardState, intent: 'requeue' | 'discard', all: boolean): DashboardState {
  const overlay = state.overlay
  const fromDetail = overlay.type === 'detail'
  if (overlay.type !== 'none' && !fromDetail) return state
  const panel = fromDetail ? overlay.target.panel : state.focus
  if (!isDeadPanel(panel)) {
    return notice(state, 'info', 'r and x act on dead letters and unknown sends: move to one of those panels (3, 4, 5)')
  }
  if (!state.snapshot) return notice(state, 'info', 'nothing read yet: wait for the first refresh')
  const page = state.snapshot.pages[panel]
  const selected = fromDetail
    ? page.records.find((record) => record.id === overlay.target.id)
    : selectedRecord(state.snapshot, state.rows, panel)
  if (fromDetail && !selected) return notice(state, 'info', 'this record is no longer on the page shown; close the detail and look again')
  const counts = panel === 'inboxDead' ? state.snapshot.counts.inbox : state.snapshot.counts.outbox
  const made = requestFor({
    intent,
    all: all && !fromDetail,
    panel,
    selected,
    filter: state.filter === '' ? undefined : { text: state.filter, records: page.records },
    count: counts[panel === 'unknown' ? 'unknown' : 'dead'] ?? 0,
  })
  if ('refusal' in made) return notice(state, 'info', made.refusal)
  return { ...state, overlay: { type: 'confirm', request: made.request, reason: '' } }
}

export function outcomeNotice(outcome: ActionOutcome, state?: DashboardState): Omit<Notice, 'at'> {
  const { request } = outcome
  const done = `${pastTense(request.verb)} ${outcome.succeeded} of ${outcome.attempted}`
  const what = outcome.changed.length > 0 ? `: ${outcome.changed.join(', ')}${outcome.succeeded > outcome.changed.length ? ', …' : ''}` : ''
  const stopped = outcome.cancelled ? ' (stopped before the rest)' : ''
  if (outcome.failed === 0) return { tone: 'ok', text: `${done}${what}${stopped}${state ? pickupWarning(outcome, state) : ''}` }
  const error = outcome.firstError!
  return { tone: 'error', text: `${done}${stopped}; ${outcome.failed} failed, first ${error.id}: ${error.message} (${error.code})` }
}

/**
 * A replay or retry only re-queues: with no instance beating in the scope (as last read), nothing
 * picks the records up, and the operator is told so rather than left to wait.
 */
function pickupWarning(outcome: ActionOutcome, state: DashboardState): string {
  if (outcome.request.verb === 'discard' || outcome.succeeded === 0 || !state.snapshot) return ''
  const now = backendNow(state)
  const beating = state.snapshot.instances.some((instance) => instance.live && now - instance.lastBeatAt <= INSTANCE_SILENT_AFTER_MS)
  return beating ? '' : ' · no live instance: nothing picks it up until a bot runs in this scope'
}
