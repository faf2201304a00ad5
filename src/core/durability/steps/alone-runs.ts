/**
 * Last runs that run alone in the process (step-rules.ts `isLastRunAlone`). A message that crashes
 * the process on every run charges a run to every message running beside it at each crash; when one
 * of those is about to take its last run after a run that never ended, the sweep's pass leaves it
 * (`waitsAlone`), this gate holds every new run, and once the runs already going have ended an alone
 * pass claims it and it runs by itself. A crash then is its own: no message beside a crash loop
 * spends its runs on another's crashes and is dead-lettered with it.
 *
 * Messages claimed meanwhile (admitted, handed over) wait here, their leases held; each waiting one
 * is in flight, so a stop waits for it and back-pressure counts it. A last run that outlasts one
 * inbox lease (a handler that hangs) holds them no longer: the gate opens with a warning, and that
 * run no longer counts as going, so it cannot stop the process for good.
 */
export class AloneRuns {
  /** Messages left to an alone pass, by id, in the order the passes found them. */
  readonly #waiting = new Set<string>()
  /** Runs going now. */
  #running = 0
  /** Runs held until the last runs waiting have run. */
  readonly #held: (() => void)[] = []
  /** The last run going alone, and the timer that stops it holding the others after `holdMs`. */
  #alone: { readonly id: string; readonly timer: ReturnType<typeof setTimeout> } | undefined
  /** Last runs that outlasted `holdMs`: no longer counted as going. */
  readonly #outlasted = new Set<string>()

  constructor(
    private readonly deps: {
      /** Asks for a sweep (the runs going have ended: an alone pass may start). */
      wake(): void
      warn(message: string): void
      /** How long a last run going alone holds the others at most (the inbox's lease). */
      holdMs(): number
    },
  ) {}

  /** Whether new runs wait: a last run waits to run alone, or runs. */
  get closed(): boolean {
    return this.#waiting.size > 0
  }

  /** The message an alone pass may take now: one waits and nothing else runs; undefined otherwise. */
  next(): string | undefined {
    return this.#running === 0 ? this.#waiting.values().next().value : undefined
  }

  /** A pass left message `id` to an alone pass. */
  waits(id: string): void {
    this.#waiting.add(id)
  }

  /** The alone pass for `id` found it no longer waiting (another run took it, an operator's verb). */
  passed(id: string): void {
    if (this.#waiting.delete(id) && this.#waiting.size === 0) for (const start of this.#held.splice(0)) start()
  }

  /** Resolves once a new run may start; only ever asked while closed. */
  opened(): Promise<void> {
    return new Promise((resolve) => this.#held.push(resolve))
  }

  started(): void {
    this.#running++
  }

  /** An alone pass took message `id`: its run starts now, alone. */
  goesAlone(id: string): void {
    const timer = setTimeout(() => this.#outlast(id), this.deps.holdMs())
    timer.unref?.()
    this.#alone = { id, timer }
  }

  /** The run of message `id` ended; when it was a last run that ran alone, it waits no longer. */
  ended(id: string): void {
    if (this.#alone?.id === id) this.stop()
    if (!this.#outlasted.delete(id)) this.#over(id)
  }

  /** No timer left behind (the engine stops). */
  stop(): void {
    clearTimeout(this.#alone?.timer)
    this.#alone = undefined
  }

  #outlast(id: string): void {
    this.#alone = undefined
    this.#outlasted.add(id)
    this.deps.warn(`durability: the last run of inbound "${id}" has run alone for a lease; the messages it held run beside it now`)
    this.#over(id)
  }

  /** Run `id` no longer counts as going: it waits no longer, and with nothing going an alone pass may start. */
  #over(id: string): void {
    this.#running--
    this.passed(id)
    if (this.#running === 0 && this.closed) this.deps.wake()
  }
}
