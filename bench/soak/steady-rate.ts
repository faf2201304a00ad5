/**
 * A steady rate of messages, an open loop: message n is due at the start + n ÷ rate and is sent
 * when due, whether or not the earlier ones were answered, so a backend that slows down shows as
 * latency and messages in flight rather than as a lower rate asked of it. A message's latency runs
 * from when it was due, not from when it was sent: time the driver fell behind (a busy event loop,
 * the in-flight bound) counts against the figures instead of vanishing from them.
 */
/** The longest the driver sleeps between looks at what is due (an answer wakes it sooner at the bound). @default 50 */
const STEADY_RATE_LOOK_MAX_MS = 50
/** The shortest sleep between two bursts: messages due within it go out together, not one timer each. @default 5 */
const STEADY_RATE_BURST_MS = 5

export interface SteadyRateOptions {
  /** Messages per second. */
  rate: number
  /** Messages in all. */
  count: number
  /** Messages sent and not yet answered at most; past it the driver waits (and falls behind). */
  inFlightMax: number
  /** The run's time origin, `performance.now()`: message 0 is due then. */
  startedAt: number
  signal?: AbortSignal
}

/** Sends message `n`; resolves once it was answered. */
export type SendMessage = (n: number) => Promise<void>

export class SteadyRate {
  #sent = 0
  #answered = 0
  #failed = 0
  #firstError: string | undefined
  #wake: (() => void) | undefined

  constructor(
    private readonly options: SteadyRateOptions,
    private readonly send: SendMessage,
    private readonly onAnswered: (latencyMs: number) => void,
  ) {}

  get sent(): number {
    return this.#sent
  }

  get answered(): number {
    return this.#answered
  }

  /** Messages whose send threw (the bot refused or lost them). */
  get failed(): number {
    return this.#failed
  }

  get inFlight(): number {
    return this.#sent - this.#answered - this.#failed
  }

  /** The first failure's message, for the report. */
  get firstError(): string | undefined {
    return this.#firstError
  }

  /** Sends every message as it falls due; resolves once the last was sent (or on abort). */
  async run(): Promise<void> {
    const { rate, count, inFlightMax, startedAt, signal } = this.options
    while (this.#sent < count && !signal?.aborted) {
      const due = Math.min(count, Math.floor(((performance.now() - startedAt) / 1_000) * rate) + 1)
      while (this.#sent < due && this.inFlight < inFlightMax) this.#start(this.#sent++)
      if (this.#sent >= count) break
      const nextDueInMs = startedAt + (this.#sent * 1_000) / rate - performance.now()
      const atBound = this.inFlight >= inFlightMax
      const ms = atBound ? STEADY_RATE_LOOK_MAX_MS : Math.min(STEADY_RATE_LOOK_MAX_MS, Math.max(STEADY_RATE_BURST_MS, nextDueInMs))
      await this.#sleep(ms, atBound)
    }
  }

  /** Waits until every message sent was answered or failed, at most `timeoutMs`. */
  async drain(timeoutMs: number): Promise<void> {
    const until = performance.now() + timeoutMs
    while (this.inFlight > 0 && performance.now() < until)
      await this.#sleep(Math.min(STEADY_RATE_LOOK_MAX_MS, until - performance.now()), true)
  }

  #start(n: number): void {
    const dueAt = this.options.startedAt + (n * 1_000) / this.options.rate
    this.send(n).then(
      () => {
        this.#answered++
        this.onAnswered(performance.now() - dueAt)
        this.#wake?.()
      },
      (error: unknown) => {
        this.#failed++
        this.#firstError ??= error instanceof Error ? error.message : String(error)
        this.#wake?.()
      },
    )
  }

  /**
   * Sleeps `ms`, or less when the run is aborted or, with `wakeOnAnswer`, when an answer arrives
   * (at the in-flight bound it frees a place). A plain timer and listener: a soak takes thousands
   * of these naps, and must not grow what it measures.
   */
  #sleep(ms: number, wakeOnAnswer: boolean): Promise<void> {
    const signal = this.options.signal
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer)
        signal?.removeEventListener('abort', done)
        this.#wake = undefined
        resolve()
      }
      const timer = setTimeout(done, Math.max(0, ms))
      signal?.addEventListener('abort', done, { once: true })
      if (wakeOnAnswer) this.#wake = done
    })
  }
}
