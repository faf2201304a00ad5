/**
 * One lifecycle for every background loop (sweeper, heartbeats, lease renewal): idempotent start
 * and stop, no overlapping ticks, stop waits for the tick in flight, timers unref'ed, errors
 * reported instead of thrown from a timer.
 */
export class BackgroundLoop {
  #timer: NodeJS.Timeout | undefined
  #running: Promise<void> | undefined
  #started = false
  #kickRequested = false

  constructor(
    private readonly name: string,
    private readonly periodMs: () => number,
    private readonly tick: () => Promise<void>,
    private readonly onError: (error: unknown, loop: string) => void,
  ) {}

  /** Whether the loop runs. */
  get started(): boolean {
    return this.#started
  }

  /** Starts the loop (a first tick now unless `runNow` is false). Idempotent. */
  start(runNow = true): void {
    if (this.#started) return
    this.#started = true
    if (runNow) this.kick()
    else this.#schedule()
  }

  /** Runs a tick as soon as possible (after the one in flight, if any). */
  kick(): void {
    if (!this.#started) return
    if (this.#running) {
      this.#kickRequested = true
      return
    }
    clearTimeout(this.#timer)
    this.#running = this.#run()
  }

  /** The tick in flight, if any. */
  async settled(): Promise<void> {
    while (this.#running) await this.#running
  }

  /** Stops the loop and waits, bounded, for the tick in flight. Idempotent. */
  async stop(): Promise<void> {
    this.#started = false
    clearTimeout(this.#timer)
    await this.#running
  }

  async #run(): Promise<void> {
    try {
      await this.tick()
    } catch (error) {
      this.onError(error, this.name)
    } finally {
      this.#running = undefined
      if (this.#kickRequested && this.#started) {
        this.#kickRequested = false
        this.#running = this.#run()
      } else {
        this.#schedule()
      }
    }
  }

  #schedule(): void {
    if (!this.#started) return
    clearTimeout(this.#timer)
    this.#timer = setTimeout(() => {
      this.#running = this.#run()
    }, this.periodMs())
    this.#timer.unref()
  }
}
