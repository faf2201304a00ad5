/**
 * The dashboard's one stateful hook: the store, the source that polls the backend, the runner of
 * effects and the clock that moves the countdowns. It starts them on mount and its cleanup stops
 * them (the source awaits its refresh in flight); the caller closes the connection after unmount.
 */
import { useEffect, useMemo, useSyncExternalStore } from 'react'
import type { Key } from 'ink'
import type { DashboardConnection } from '../../operator/dashboard-connection.js'
import { keyEvent, splitKeys } from './keys.js'
import { DASHBOARD_LIMITS } from '../limits.js'
import { EffectRunner } from './effect-runner.js'
import { DashboardSource } from './source.js'
import { initialState, type DashboardEvent, type DashboardState } from '../state/reduce.js'
import { DashboardStore } from '../state/store.js'
import type { Snapshot } from './snapshot.js'
import type { StoryFeed } from './story-feed.js'

export interface UseDashboardOptions {
  connection: DashboardConnection
  refreshMs: number
  scope?: string
  bot?: string
  /** A story told beside the dashboard (the demo's steps), on the message line. */
  story?: StoryFeed
  onQuit(): void
  /** Called once the source has stopped (after unmount), with the last snapshot the dashboard showed. */
  onStopped?(stopped: Promise<void>, shown: Snapshot | undefined): void
}

/** The live state, and what a key press does. */
export function useDashboard(options: UseDashboardOptions): { state: DashboardState; press(input: string, key: Key): void } {
  const { connection, refreshMs, scope, bot } = options
  const parts = useMemo(() => {
    const store = new DashboardStore(initialState({ label: connection.label, refreshMs, scope, bot, now: Date.now() }))
    let runner: EffectRunner | undefined
    const dispatch = (event: DashboardEvent) => {
      const effect = store.send(event)
      if (effect) runner?.run(effect)
    }
    const source = new DashboardSource({ connection, current: store.current, dispatch })
    runner = new EffectRunner({ connection, source, current: store.current, dispatch, onQuit: () => options.onQuit() })
    return { store, source, runner, dispatch }
    // One store per dashboard: the connection and the options it was opened with do not change.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [connection])

  useEffect(() => {
    parts.source.start()
    const unsubscribe = options.story?.subscribe((text) => parts.dispatch({ type: 'story', text }))
    const clock = setInterval(() => parts.dispatch({ type: 'tick', at: Date.now() }), DASHBOARD_LIMITS.tickMs)
    clock.unref()
    return () => {
      clearInterval(clock)
      unsubscribe?.()
      const stopped = Promise.all([parts.source.stop(), parts.runner.stop()]).then(() => undefined)
      options.onStopped?.(stopped, parts.store.current().snapshot)
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [parts])

  const state = useSyncExternalStore(parts.store.subscribe, parts.store.current)
  return {
    state,
    press: (input, key) => {
      for (const [one, flags] of splitKeys(input, key)) {
        const event = keyEvent(parts.store.current(), one, flags)
        if (event) parts.dispatch(event)
      }
    },
  }
}
