/**
 * Does the effects the reducer's events ask for (see state/effects.ts) and reports back with events:
 * a record's detail through the `show` service, a confirmed action through the replay / retry /
 * discard services (one at a time, cancellable between records, its progress throttled), the
 * scope list through the `scopes` service. Nothing it does throws into the terminal: every
 * failure becomes an event the message line shows.
 */
import { listScopes } from '../../operator/scopes.js'
import { budgetOf, showRecord } from '../../operator/show.js'
import type { DashboardConnection } from '../../operator/dashboard-connection.js'
import { runRequest } from './run-request.js'
import { recordDetail } from '../views/detail-lines.js'
import type { Effect } from '../state/effects.js'
import { DASHBOARD_LIMITS } from '../limits.js'
import type { OperatorRequest } from '../state/requests.js'
import type { DashboardSource } from './source.js'
import type { DashboardEvent, DashboardState, DetailTarget } from '../state/reduce.js'

export interface RunnerOptions {
  connection: DashboardConnection
  source: DashboardSource
  current(): DashboardState
  dispatch(event: DashboardEvent): void
  /** Called once on quit (the app unmounts). */
  onQuit(): void
  /** @default Date.now */
  clock?: () => number
}

export class EffectRunner {
  #running: AbortController | undefined
  #inFlight: Promise<void> | undefined
  #quitting = false

  constructor(private readonly options: RunnerOptions) {}

  /** Starts the effect; its outcome arrives as events. */
  run(effect: Effect): void {
    switch (effect.type) {
      case 'refresh':
        return this.options.source.refreshNow()
      case 'loadDetail':
        return void this.#loadDetail(effect.target)
      case 'run': {
        const running = this.#runRequest(effect.request)
        this.#inFlight = running.finally(() => {
          if (this.#inFlight === running) this.#inFlight = undefined
        })
        return
      }
      case 'cancelRun':
        return this.#running?.abort()
      case 'loadScopes':
        return void this.#loadScopes()
      case 'quit':
        this.#running?.abort()
        if (this.#quitting) return
        this.#quitting = true
        return this.options.onQuit()
    }
  }

  /** Stops a running action between two records and waits for it (at most `stopWaitMs`). */
  async stop(): Promise<void> {
    this.#running?.abort()
    if (!this.#inFlight) return
    let timer: NodeJS.Timeout | undefined
    await Promise.race([this.#inFlight, new Promise<void>((resolve) => (timer = setTimeout(resolve, DASHBOARD_LIMITS.stopWaitMs)))])
    clearTimeout(timer)
  }

  async #loadDetail(target: DetailTarget): Promise<void> {
    const { connection, dispatch, current } = this.options
    const scope = current().scope
    if (scope === undefined || target.kind === 'instances') return
    try {
      const content = await connection.use('read', async (backend) => {
        const now = await backend.now()
        const journal = backend.journal(scope)
        const [shown] = await showRecord(journal, target.id, [target.kind as 'inbox' | 'outbox'], now, await budgetOf(journal, now, {}))
        return recordDetail(shown!, now)
      })
      dispatch({ type: 'detailLoaded', target, content })
    } catch (error) {
      dispatch({ type: 'detailFailed', target, message: connection.describe(error) })
    }
  }

  async #runRequest(request: OperatorRequest): Promise<void> {
    const { connection, dispatch, current } = this.options
    const clock = this.options.clock ?? Date.now
    const scope = current().scope
    if (this.#running || scope === undefined) {
      dispatch({
        type: 'requestFailed',
        request,
        message: this.#running ? 'another action is still running' : 'no scope chosen',
        at: clock(),
      })
      return
    }
    const controller = (this.#running = new AbortController())
    let shownAt = 0
    try {
      const outcome = await connection.use('write', (backend) =>
        runRequest(backend.journal(scope), request, {
          now: () => backend.now(),
          pace: {
            signal: controller.signal,
            onProgress: (done, total) => {
              if (done < total && clock() - shownAt < DASHBOARD_LIMITS.progressEveryMs) return
              shownAt = clock()
              dispatch({ type: 'progress', done, total })
            },
          },
        }),
      )
      dispatch({ type: 'requestDone', outcome, at: clock() })
    } catch (error) {
      dispatch({ type: 'requestFailed', request, message: connection.describe(error), at: clock() })
    } finally {
      this.#running = undefined
    }
  }

  async #loadScopes(): Promise<void> {
    const { connection, dispatch } = this.options
    try {
      const scopes = await connection.use('read', (backend) => listScopes(backend))
      dispatch({ type: 'scopesLoaded', scopes })
    } catch (error) {
      dispatch({ type: 'scopesFailed', message: connection.describe(error) })
    }
  }
}
