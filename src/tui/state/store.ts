/**
 * A small synchronous store around the reducer: `send` reduces at once (so a second key pressed
 * before React renders sees the first one's state), tells the subscribers, and returns the effect
 * the event asks for. React reads it through `useSyncExternalStore`.
 */
import { effectOf, type Effect } from './effects.js'
import { reduce, type DashboardEvent, type DashboardState } from './reduce.js'

export class DashboardStore {
  #state: DashboardState
  readonly #listeners = new Set<() => void>()

  constructor(initial: DashboardState) {
    this.#state = initial
  }

  /** The current state. */
  readonly current = (): DashboardState => this.#state

  /** Applies `event`; returns the effect it asks for. */
  send(event: DashboardEvent): Effect | undefined {
    const before = this.#state
    const after = reduce(before, event)
    this.#state = after
    if (after !== before) for (const listener of this.#listeners) listener()
    return effectOf(before, event, after)
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }
}
