/**
 * The operator's requests (replay, retry, discard) and their overlays: r / R / x / X ask a
 * confirmation (or say why there is none), which takes the operator's reason, kept on each changed
 * record as `--reason` does; enter runs it, esc cancels or stops it, and its outcome leaves a notice.
 */
import { INSTANCE_SILENT_AFTER_MS } from '../../../operator/instances.js'
import type { RequestOutcome } from '../../io/run-request.js'
import { DASHBOARD_LIMITS } from '../../limits.js'
import { backendNow, notice, type DashboardEvent, type DashboardState, type Notice } from '../model.js'
import { deadTotal, isDeadPanel, PANELS } from '../panels.js'
import { pastTense, requestFor } from '../requests.js'
import { selectedRecord } from '../selection.js'

export function reduceRequest(state: DashboardState, event: DashboardEvent): DashboardState | undefined {
  const overlay = state.overlay
  switch (event.type) {
    case 'act':
      return ask(state, event.intent, event.all)
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
    case 'requestDone':
      return { ...state, overlay: { type: 'none' }, notice: { ...outcomeNotice(event.outcome, state), at: event.at } }
    case 'requestFailed':
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

/** r / R / x / X: the confirmation of a request, or why there is none. */
function ask(state: DashboardState, intent: 'requeue' | 'discard', all: boolean): DashboardState {
  const overlay = state.overlay
  const fromDetail = overlay.type === 'detail'
  if (overlay.type !== 'none' && !fromDetail) return state
  const panel = fromDetail ? overlay.target.panel : state.focus
  if (!isDeadPanel(panel)) {
    const numbers = PANELS.flatMap((candidate, index) => (isDeadPanel(candidate) ? [index + 1] : [])).join(', ')
    return notice(state, 'info', `r and x act on dead letters and unknown sends: move to one of those panels (${numbers})`)
  }
  if (!state.snapshot) return notice(state, 'info', 'nothing read yet: wait for the first refresh')
  const page = state.snapshot.pages[panel]
  const selected = fromDetail
    ? page.records.find((record) => record.id === overlay.target.id)
    : selectedRecord(state.snapshot, state.rows, panel)
  if (fromDetail && !selected) return notice(state, 'info', 'this record is no longer on the page shown; close the detail and look again')
  const made = requestFor({
    intent,
    all: all && !fromDetail,
    panel,
    selected,
    filter: state.filter === '' ? undefined : { text: state.filter, records: page.records },
    count: deadTotal(state.snapshot, panel),
  })
  if ('refusal' in made) return notice(state, 'info', made.refusal)
  return { ...state, overlay: { type: 'confirm', request: made.request, reason: '' } }
}

function outcomeNotice(outcome: RequestOutcome, state?: DashboardState): Omit<Notice, 'at'> {
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
function pickupWarning(outcome: RequestOutcome, state: DashboardState): string {
  if (outcome.request.verb === 'discard' || outcome.succeeded === 0 || !state.snapshot) return ''
  const now = backendNow(state)
  const beating = state.snapshot.instances.some((instance) => instance.live && now - instance.lastBeatAt <= INSTANCE_SILENT_AFTER_MS)
  return beating ? '' : ' · no live instance: nothing picks it up until a bot runs in this scope'
}
