import { LIMITS } from '../limits.js'

/** A caller of `below`: what it waits for, and how it is told. */
interface BelowWaiter {
  count: number
  resolve: () => void
}

/** The work a pipeline has started and not finished: what `bot.idle()` and `bot.stop()` wait for. */
export class InFlight {
  readonly #work = new Set<Promise<unknown>>()
  /** Callers waiting for room (see `room`). */
  #waiting: (() => void)[] = []
  /** Callers waiting for the work in flight to fall under a count (see `below`). */
  #below: BelowWaiter[] = []

  /** @param max The work held before `hasRoom` says no (LIMITS.inFlightMax). */
  constructor(private readonly max: number = LIMITS.inFlightMax) {}

  get size(): number {
    return this.#work.size
  }

  /** Whether less than `max` work is in flight. */
  get hasRoom(): boolean {
    return this.#work.size < this.max
  }

  /** Resolves once less than `max` work is in flight (at once when it already is). */
  room(): Promise<void> {
    if (this.hasRoom) return Promise.resolve()
    return new Promise((resolve) => this.#waiting.push(resolve))
  }

  /** Resolves once less than `count` work is in flight (at once when it already is). */
  below(count: number): Promise<void> {
    if (this.#work.size < count) return Promise.resolve()
    return new Promise((resolve) => this.#below.push({ count, resolve }))
  }

  /** Counts `work` as in flight until it settles; returns it. */
  track<T>(work: Promise<T>): Promise<T> {
    this.#work.add(work)
    const done = () => this.forget(work)
    work.then(done, done)
    return work
  }

  /**
   * Counts `work` as in flight until `forget(work)`: for work whose own last then() can say when it
   * ended, without the promise `track` adds.
   */
  add(work: Promise<unknown>): void {
    this.#work.add(work)
  }

  forget(work: Promise<unknown>): void {
    this.#work.delete(work)
    if (this.#waiting.length > 0 && this.hasRoom) {
      const waiting = this.#waiting
      this.#waiting = []
      for (const resolve of waiting) resolve()
    }
    if (this.#below.length > 0) {
      const size = this.#work.size
      const still: BelowWaiter[] = []
      for (const waiter of this.#below) {
        if (size < waiter.count) waiter.resolve()
        else still.push(waiter)
      }
      this.#below = still
    }
  }

  /** Waits until nothing is in flight, or `timeoutMs` passed (work started meanwhile is waited for too). */
  async settle(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while (this.#work.size > 0 && Date.now() <= deadline) {
      const timer = new Promise((resolve) => setTimeout(resolve, Math.max(1, deadline - Date.now())).unref())
      await Promise.race([Promise.allSettled([...this.#work]), timer])
    }
  }

  /**
   * Resolves once nothing is in flight and `dueWork` finds nothing that can be worked on now; while
   * there is, `wake` starts it. Rejects after `timeoutMs`.
   */
  async idle(timeoutMs: number, dueWork: () => Promise<boolean> = async () => false, wake: () => void = () => {}): Promise<void> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      await this.settle(Math.max(0, deadline - Date.now()))
      const busy = await dueWork()
      if (!busy && this.#work.size === 0) return
      if (Date.now() > deadline) throw new Error(`bot.idle(): still busy after ${timeoutMs} ms`)
      wake()
      await new Promise((resolve) => setTimeout(resolve, LIMITS.idleRecheckMs))
    }
  }
}
