/**
 * The dashboard's state: what it holds, the events that change it, and the small helpers every
 * reducer shares. Everything the screen shows is derived from this state; everything that happens
 * (a refresh that arrived or failed, a key, an action's outcome, the clock) is an event. Nothing
 * here reads a backend, a clock or a terminal, so it is tested without Ink. Every list it holds is
 * bounded: pages of the journal, the last `historyMax` rate samples, the last page cursors, the
 * heartbeats of the instances listed now.
 */
import type { Cursor } from '../../operator/records.js'
import type { ScopeSummary } from '../../operator/scopes.js'
import type { RequestOutcome } from '../io/run-request.js'
import type { DetailContent } from '../views/detail-lines.js'
import type { RateMemory, RateSample } from './rates.js'
import type { OperatorRequest } from './requests.js'
import { DEAD_PANELS, type DeadPanelId, type Snapshot, type SnapshotQuery } from '../io/snapshot.js'
import type { PanelId } from './panels.js'
import { emptyRows, type RowState } from './selection.js'

/** A line on the message bar: an action's outcome, a refusal, a hint. */
export interface Notice {
  tone: 'info' | 'ok' | 'error'
  text: string
  /** Local clock; it fades after `noticeMs`. */
  at: number
}

/** The reports that cover the panels: dead letters grouped by error, the retry queue. */
export type ReportId = 'errors' | 'retries'

/** Which record (or instance) a detail shows, and the panel it was opened from. */
export interface DetailTarget {
  panel: PanelId
  kind: 'inbox' | 'outbox' | 'instances'
  id: string
}

/** What covers the panels, or takes the keys, for a while. */
export type Overlay =
  | { type: 'none' }
  | { type: 'help'; /** The first key entry shown: the help scrolls when it is taller than the screen. */ offset: number }
  | { type: 'detail'; target: DetailTarget; content: DetailContent | undefined; error: string | undefined; offset: number }
  | { type: 'confirm'; request: OperatorRequest; /** The operator's reason, typed into the confirmation. */ reason: string }
  | { type: 'running'; request: OperatorRequest; done: number; total: number }
  | { type: 'filter'; draft: string }
  | { type: 'report'; report: ReportId; offset: number }
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
  /** The story told beside the dashboard (the demo's step), shown when the message line is free. */
  story: string | undefined
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
  | { type: 'story'; text: string }
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
  | { type: 'reasonInput'; text: string }
  | { type: 'reasonErase' }
  | { type: 'cancel' }
  | { type: 'progress'; done: number; total: number }
  | { type: 'requestDone'; outcome: RequestOutcome; at: number }
  | { type: 'requestFailed'; request: OperatorRequest; message: string; at: number }
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
  | { type: 'report'; report: ReportId }
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
    story: undefined,
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

/** The state with a notice on the message line. */
export function notice(state: DashboardState, tone: Notice['tone'], text: string): DashboardState {
  return { ...state, notice: { tone, text, at: state.clock } }
}

export function emptyStacks(): Record<DeadPanelId, Cursor[]> {
  return { inboxDead: [], outboxDead: [], unknown: [] }
}

export function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value))
}
