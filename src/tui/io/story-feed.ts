/**
 * A story told beside the dashboard (the demo's steps): lines the message line shows, one at a time,
 * when nothing more pressing is on it. The teller keeps its last line, so a dashboard that mounts
 * after a step began still shows it.
 */

/** What the dashboard subscribes to: each line as it is told (the last one at once on subscribing). */
export interface StoryFeed {
  subscribe(listener: (line: string) => void): () => void
}

/** A story feed the teller writes to. */
export class StoryTeller implements StoryFeed {
  #last: string | undefined
  readonly #listeners = new Set<(line: string) => void>()

  /** Tells a line: every dashboard subscribed shows it now. */
  readonly tell = (line: string): void => {
    this.#last = line
    for (const listener of this.#listeners) listener(line)
  }

  readonly subscribe = (listener: (line: string) => void): (() => void) => {
    this.#listeners.add(listener)
    if (this.#last !== undefined) listener(this.#last)
    return () => this.#listeners.delete(listener)
  }
}
