/**
 * The dashboard's state and the pure reducer that changes it (STYLE habit 16). Everything the
 * screen shows is derived from this state; everything that happens — a refresh that arrived or
 * failed, a key, an action's outcome, the clock — is an event. Nothing here reads a backend, a
 * clock or a terminal, so it is tested without Ink. Every list it holds is bounded: pages of the
 * journal, the last `historyMax` rate samples, the last page cursors, the heartbeats of the
 * instances listed now.
 */
import type { Cursor } from '../cli/services/records.js'
import type { ScopeSummary } from '../cli/services/scopes.js'
import type { ActionOutcome } from './actions.js'
import type { DetailContent } from './detail-lines.js'
import { DASHBOARD_LIMITS } from './limits.js'
import { advanceRates, type RateMemory, type RateSample } from './rates.js'
import type { ActionRequest } from './requests.js'
import { act, open, outcomeNotice } from './state-actions.js'
import { DEAD_PANELS, type DeadPanelId, type Snapshot, type SnapshotQuery } from './snapshot.js'
import { isDeadPanel, reconcileRows, rowIdsOf, type PanelId, type RowState, PANELS, emptyRows } from './selection.js'

export { PANELS, type PanelId, type RowState } from './selection.js'

/** A line on the message bar: an action's outcome, a refusal, a hint. */
export interface Notice {
  tone: 'info' | 'ok' | 'error'
  text: string
  /** Local clock; it fades after `noticeMs`. */
  at: number
}

/** Which record (or instance) a detail shows, and the panel it was opened from. */
export interface DetailTarget {
  panel: PanelId
  kind: 'inbox' | 'outbox' | 'instances'
  id: string
}

/** What covers the panels, or takes the keys, for a while. */
export type Overlay =
  | { type: 'none' }
  | { type: 'help' }
  | { type: 'detail'; target: DetailTarget; content: DetailContent | undefined; error: string | undefined; offset: number }
  | { type: 'confirm'; request: ActionRequest }
  | { type: 'running'; request: ActionRequest; done: number; total: number }
  | { type: 'filter'; draft: string }
  | { type: 'scopes'; scopes: ScopeSummary[] | undefined; index: number; error: string | undefined; required: boolean }

/** The latest failed refresh, while the backend keeps failing. */
export interface Failure {
  message: string
  /** Local clock of the failure. */
  at: number
  /** Local clock of the first failure in this row (what is shown has been unknown since). */
  since: number
  /** Refreshes failed in a row. */
  count: number
  /** Local clock of the next try. */
  retryAt: number
}

export interface DashboardState {
  /** The backend URL, its password replaced by ***. */
  readonly label: string
  readonly refreshMs: number
  /** What the operator asked for (--scope / --bot); resolved into `scope` by the first refresh. */
  readonly scopeChoice: { scope?: string; bot?: string }
  scope: string | undefined
  paused: boolean
  filter: string
  focus: PanelId
  rows: Record<PanelId, RowState>
  /** Where each dead-letter panel's pages started (the last is the page shown; empty: the first page). */
  pageStacks: Record<DeadPanelId, Cursor[]>
  snapshot: Snapshot | undefined
  /** Local clock of the last refresh that arrived. */
  lastRefreshAt: number | undefined
  failure: Failure | undefined
  notice: Notice | undefined
  overlay: Overlay
  /** Rate samples for the sparklines, oldest first, at most `historyMax`. */
  history: RateSample[]
  rates: RateMemory | undefined
  /** Local clock of the last tick (the countdowns move with it). */
  clock: number
}

export type DashboardEvent =
  | { type: 'scopeResolved'; scope: string }
  | { type: 'scopesNeeded' }
  | { type: 'snapshot'; snapshot: Snapshot; query: SnapshotQuery; receivedAt: number }
  | { type: 'refreshFailed'; message: string; at: number; retryInMs: number }
  | { type: 'tick'; at: number }
  | { type: 'focus'; panel: PanelId }
  | { type: 'focusNext' }
  | { type: 'focusPrev' }
  | { type: 'moveRow'; by: number }
  | { type: 'moveRowTo'; to: 'first' | 'last' }
  | { type: 'pageNext' }
  | { type: 'pagePrev' }
  | { type: 'open' }
  | { type: 'detailLoaded'; target: DetailTarget; content: DetailContent }
  | { type: 'detailFailed'; target: DetailTarget; message: string }
  | { type: 'close' }
  | { type: 'act'; intent: 'requeue' | 'discard'; all: boolean }
  | { type: 'confirm' }
  | { type: 'cancel' }
  | { type: 'progress'; done: number; total: number }
  | { type: 'actionDone'; outcome: ActionOutcome; at: number }
  | { type: 'actionFailed'; request: ActionRequest; message: string; at: number }
  | { type: 'filterStart' }
  | { type: 'filterInput'; text: string }
  | { type: 'filterErase' }
  | { type: 'filterApply' }
  | { type: 'dismiss' }
  | { type: 'togglePause' }
  | { type: 'scopesOpen' }
  | { type: 'scopesLoaded'; scopes: ScopeSummary[] }
  | { type: 'scopesFailed'; message: string }
  | { type: 'chooseScope' }
  | { type: 'help' }
  | { type: 'quit' }

/** The state before the first refresh. */
export function initialState(options: { label: string; refreshMs: number; scope?: string; bot?: string; now: number }): DashboardState {
  return {
    label: options.label,
    refreshMs: options.refreshMs,
    scopeChoice: { ...(options.scope !== undefined && { scope: options.scope }), ...(options.bot !== undefined && { bot: options.bot }) },
    scope: undefined,
    paused: false,
    filter: '',
    focus: 'inboxDead',
    rows: emptyRows(),
    pageStacks: emptyStacks(),
    snapshot: undefined,
    lastRefreshAt: undefined,
    failure: undefined,
    notice: undefined,
    overlay: { type: 'none' },
    history: [],
    rates: undefined,
    clock: options.now,
  }
}

/** The query the next refresh makes (undefined until the scope is known). */
export function queryOf(state: DashboardState): SnapshotQuery | undefined {
  if (state.scope === undefined) return undefined
  const pages = Object.fromEntries(DEAD_PANELS.map((panel) => [panel, state.pageStacks[panel].at(-1)])) as SnapshotQuery['pages']
  return { scope: state.scope, filter: state.filter, pages }
}

/** The backend's clock now, estimated from the last refresh and the local clock since. */
export function backendNow(state: DashboardState): number {
  if (!state.snapshot || state.lastRefreshAt === undefined) return state.clock
  return state.snapshot.at + Math.max(0, state.clock - state.lastRefreshAt)
}

/** The pure reducer. */
export function reduce(state: DashboardState, event: DashboardEvent): DashboardState {
  switch (event.type) {
    case 'scopeResolved':
      return state.scope === event.scope ? state : { ...withScope(state, event.scope), overlay: state.overlay.type === 'scopes' && state.overlay.required ? { type: 'none' } : state.overlay }
    case 'scopesNeeded':
      return state.overlay.type === 'scopes' ? state : { ...state, overlay: { type: 'scopes', scopes: undefined, index: 0, error: undefined, required: true } }
    case 'snapshot':
      return arrived(state, event.snapshot, event.query, event.receivedAt)
    case 'refreshFailed':
      return { ...state, failure: { message: event.message, at: event.at, since: state.failure?.since ?? event.at, count: (state.failure?.count ?? 0) + 1, retryAt: event.at + event.retryInMs } }
    case 'tick':
      return { ...state, clock: event.at, notice: state.notice && event.at - state.notice.at >= DASHBOARD_LIMITS.noticeMs ? undefined : state.notice }
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
      return event.type === 'detailLoaded' ? { ...state, overlay: { ...overlay, content: event.content, error: undefined } } : { ...state, overlay: { ...overlay, error: event.message } }
    }
    case 'close':
      if (state.overlay.type === 'scopes' && state.overlay.required) return notice(state, 'info', 'choose a scope (↑↓ and enter), or q to quit')
      return state.overlay.type === 'running' ? state : { ...state, overlay: { type: 'none' } }
    case 'act':
      return act(state, event.intent, event.all)
    case 'confirm':
      if (state.overlay.type !== 'confirm') return state
      return { ...state, overlay: { type: 'running', request: state.overlay.request, done: 0, total: state.overlay.request.count } }
    case 'cancel':
      if (state.overlay.type === 'confirm') return notice({ ...state, overlay: { type: 'none' } }, 'info', 'cancelled: nothing was changed')
      if (state.overlay.type === 'running') return notice(state, 'info', 'stopping after the current record…')
      return state
    case 'progress':
      return state.overlay.type === 'running' ? { ...state, overlay: { ...state.overlay, done: event.done, total: event.total } } : state
    case 'actionDone':
      return { ...state, overlay: { type: 'none' }, notice: { ...outcomeNotice(event.outcome, state), at: event.at } }
    case 'actionFailed':
      return { ...state, overlay: { type: 'none' }, notice: { tone: 'error', text: `${event.request.verb} failed: ${event.message}`, at: event.at } }
    case 'filterStart':
      return { ...state, overlay: { type: 'filter', draft: state.filter } }
    case 'filterInput':
      if (state.overlay.type !== 'filter') return state
      return { ...state, overlay: { type: 'filter', draft: (state.overlay.draft + event.text.replace(/[\x00-\x1f\x7f]/g, '')).slice(0, DASHBOARD_LIMITS.filterLengthMax) } }
    case 'filterErase':
      return state.overlay.type === 'filter' ? { ...state, overlay: { type: 'filter', draft: state.overlay.draft.slice(0, -1) } } : state
    case 'filterApply':
      return state.overlay.type === 'filter' ? { ...withFilter(state, state.overlay.draft.trim()), overlay: { type: 'none' } } : state
    case 'dismiss':
      if (state.filter !== '') return withFilter(state, '')
      return { ...state, notice: undefined }
    case 'togglePause':
      return { ...state, paused: !state.paused }
    case 'scopesOpen': {
      // Again while the picker is open (r): list the scopes again, still required if it was.
      const required = state.overlay.type === 'scopes' && state.overlay.required
      return { ...state, overlay: { type: 'scopes', scopes: undefined, index: 0, error: undefined, required } }
    }
    case 'scopesLoaded': {
      if (state.overlay.type !== 'scopes') return state
      const scopes = event.scopes.slice(0, DASHBOARD_LIMITS.scopesMax)
      const index = Math.max(0, scopes.findIndex((summary) => summary.scope === state.scope))
      return { ...state, overlay: { ...state.overlay, scopes, index, error: undefined } }
    }
    case 'scopesFailed':
      return state.overlay.type === 'scopes' ? { ...state, overlay: { ...state.overlay, error: event.message } } : state
    case 'chooseScope': {
      const overlay = state.overlay
      const chosen = overlay.type === 'scopes' ? overlay.scopes?.[overlay.index] : undefined
      if (!chosen) return state
      return { ...withScope(state, chosen.scope), overlay: { type: 'none' } }
    }
    case 'help':
      return { ...state, overlay: state.overlay.type === 'help' ? { type: 'none' } : { type: 'help' } }
    case 'quit':
      return state
  }
}

/** A refresh arrived: keep it if it answers the current query, advance the rates, keep the selections. */
function arrived(state: DashboardState, snapshot: Snapshot, query: SnapshotQuery, receivedAt: number): DashboardState {
  // A refresh that started before a scope switch, a new filter or a page turn answers another question.
  if (state.paused || !sameQuery(queryOf(state), query)) return state
  const { memory, sample } = advanceRates(state.rates, snapshot)
  const history = sample ? [...state.history, sample].slice(-DASHBOARD_LIMITS.historyMax) : state.history
  return { ...state, snapshot, rates: memory, history, rows: reconcileRows(state.rows, snapshot), lastRefreshAt: receivedAt, clock: Math.max(state.clock, receivedAt), failure: undefined }
}

function sameQuery(a: SnapshotQuery | undefined, b: SnapshotQuery): boolean {
  if (!a || a.scope !== b.scope || a.filter !== b.filter) return false
  return DEAD_PANELS.every((panel) => cursorKey(a.pages[panel]) === cursorKey(b.pages[panel]))
}

function cursorKey(cursor: Cursor | undefined): string {
  return cursor ? `${cursor.lane}\u0000${cursor.stateTime}\u0000${cursor.key}` : ''
}

/** A new scope: nothing seen so far applies to it. */
function withScope(state: DashboardState, scope: string): DashboardState {
  return { ...state, scope, snapshot: undefined, rows: emptyRows(), pageStacks: emptyStacks(), history: [], rates: undefined, lastRefreshAt: undefined }
}

/** A new filter: the lists start again from their first pages. */
function withFilter(state: DashboardState, filter: string): DashboardState {
  if (filter === state.filter) return state
  return { ...state, filter, rows: emptyRows(), pageStacks: emptyStacks() }
}

function emptyStacks(): Record<DeadPanelId, Cursor[]> {
  return { inboxDead: [], outboxDead: [], unknown: [] }
}

function moveRow(state: DashboardState, by: number): DashboardState {
  const overlay = state.overlay
  if (overlay.type === 'detail') {
    const lines = overlay.content?.lines.length ?? 0
    return { ...state, overlay: { ...overlay, offset: clamp(overlay.offset + by, 0, Math.max(0, lines - 1)) } }
  }
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
  return { ...state, pageStacks: { ...state.pageStacks, [panel]: stack.slice(0, -1) }, rows: { ...state.rows, [panel]: { index: 0, id: null } } }
}

/** The state with a notice on the message line. */
export function notice(state: DashboardState, tone: Notice['tone'], text: string): DashboardState {
  return { ...state, notice: { tone, text, at: state.clock } }
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value))
}
