/**
 * The source: polls the backend every refresh period and dispatches what it read
 * as events. It resolves the scope first (--scope, --bot, the only scope there is, or asks), then
 * reads a snapshot for the query the state holds now. A failure is dispatched, never thrown, and
 * retried with a wait that doubles up to `retryMaxMs`. Like every background loop here: `start`
 * and `stop` are idempotent, ticks never overlap, `stop` awaits the tick in flight (bounded), the
 * timer is unref'd.
 */
import { answerWithin, chooseScope, ScopeRequiredError, type DashboardConnection } from '../../operator/dashboard-connection.js'
import { DASHBOARD_LIMITS } from '../limits.js'
import { takeSnapshot } from './snapshot.js'
import { queryOf, type DashboardEvent, type DashboardState } from '../state/reduce.js'

export interface SourceOptions {
  connection: DashboardConnection
  /** The latest state (the store updates it synchronously on every dispatch). */
  current(): DashboardState
  dispatch(event: DashboardEvent): void
  /** The local clock. @default Date.now */
  clock?: () => number
}

export class DashboardSource {
  #timer: NodeJS.Timeout | undefined
  #inFlight: Promise<void> | undefined
  #again = false
  #started = false
  #stopped = false
  #failures = 0

  constructor(private readonly options: SourceOptions) {}

  /** Starts polling with a refresh at once. */
  start(): void {
    if (this.#started || this.#stopped) return
    this.#started = true
    this.#schedule(0)
  }

  /** Refreshes as soon as the refresh in flight (if any) is done. */
  refreshNow(): void {
    if (!this.#started || this.#stopped) return
    if (this.#inFlight) {
      this.#again = true
      return
    }
    this.#schedule(0)
  }

  /** Stops polling; resolves once the refresh in flight settled (or `stopWaitMs` passed). */
  async stop(): Promise<void> {
    this.#stopped = true
    clearTimeout(this.#timer)
    this.#timer = undefined
    if (!this.#inFlight) return
    let timer: NodeJS.Timeout | undefined
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, DASHBOARD_LIMITS.stopWaitMs)))
    await Promise.race([this.#inFlight, bound])
    clearTimeout(timer)
  }

  #schedule(delayMs: number): void {
    clearTimeout(this.#timer)
    this.#timer = setTimeout(() => this.#tick(), delayMs)
    this.#timer.unref()
  }

  #tick(): void {
    this.#timer = undefined
    if (this.#stopped || this.#inFlight) return
    this.#inFlight = this.#refresh().finally(() => {
      this.#inFlight = undefined
      if (this.#stopped) return
      if (this.#again) {
        this.#again = false
        this.#schedule(0)
      } else {
        this.#schedule(this.#delay())
      }
    })
  }

  #delay(): number {
    const period = this.options.current().refreshMs
    if (this.#failures === 0) return period
    return Math.min(Math.max(period, 500) * 2 ** (this.#failures - 1), DASHBOARD_LIMITS.retryMaxMs)
  }

  async #refresh(): Promise<void> {
    const { connection, current, dispatch } = this.options
    const clock = this.options.clock ?? Date.now
    // Paused: nothing is read. An action running: it has the backend to itself, and the refresh after it shows its result.
    if (current().paused || current().overlay.type === 'running') return
    try {
      await answerWithin(
        connection.use('read', (backend) => this.#read(backend)),
        Math.max(DASHBOARD_LIMITS.refreshTimeoutMs, current().refreshMs * 10),
      )
      this.#failures = 0
    } catch (error) {
      if (this.#stopped) return
      this.#failures++
      dispatch({ type: 'refreshFailed', message: connection.describe(error), at: clock(), retryInMs: this.#delay() })
    }
  }

  async #read(backend: Parameters<Parameters<DashboardConnection['use']>[1]>[0]): Promise<void> {
    const { current, dispatch } = this.options
    const clock = this.options.clock ?? Date.now
    const state = current()
    if (state.scope === undefined) {
      // Several scopes and none chosen: the operator picks one; nothing to read until then.
      if (state.overlay.type === 'scopes' && state.overlay.required) return
      try {
        dispatch({ type: 'scopeResolved', scope: await chooseScope(backend, state.scopeChoice, { allowNew: true }) })
      } catch (error) {
        if (!(error instanceof ScopeRequiredError)) throw error
        dispatch({ type: 'scopesNeeded' })
        return
      }
    }
    const query = queryOf(current())
    if (!query || this.#stopped) return
    const snapshot = await takeSnapshot(backend, query)
    if (!this.#stopped) dispatch({ type: 'snapshot', snapshot, query, receivedAt: clock() })
  }
}
