/**
 * `crashable(backend)`: wraps a durability backend so a test can "kill" the bot at a precise journal
 * write — right before it (the write never happens) or right after it (it happened, nothing after
 * it does). From the crash on, every call through the wrapper never settles, as if the process were
 * gone; start a new bot on the unwrapped backend with the same instanceId to recover. The crashed
 * bot's start() and stop() resolve and its idle() rejects with a `BackendCrashedError` (the wrapper
 * tells it through `whenHalted`), so a crash during `bot.start()` does not hang its caller.
 *
 * A backend that speaks the steps (steps/journal-steps.ts) keeps speaking them through the wrapper,
 * so a bot on it runs the engine it would run unwrapped; each step is a crash point (`steps.admit`…):
 * before it, the store never sees it; after it, it landed and its answer is lost.
 */
import type { DurabilityBackend, Journal, JournalListQuery, JournalWrite, JournalWriteResult } from '../core/durability/journal/backend.js'
import {
  writeNames,
  type CrashPoint,
  type StepCrashPoint,
  type WriteLabel,
  type WriteName,
} from '../core/durability/journal/crash-points.js'
import type { RecordKind } from '../core/durability/journal/records.js'
import type { JournalSteps } from '../core/durability/steps/journal-steps.js'
import { BotmeshError, ERROR_CODES } from '../core/errors/errors.js'

/** Where the crash happened. */
export interface CrashSite {
  /** The crash point. */
  point: CrashPoint
  /** Before the write, or right after it. */
  when: 'before' | 'after'
  /** Which write of that name it was, counted from the arming (the `nth` asked for; 0 for crashNow). */
  occurrence: number
}

interface Armed {
  point: CrashPoint
  when: 'before' | 'after'
  /** Crash at this occurrence of the point after the arming (1-based). */
  nth: number
  /** How many writes of that name were reached before the arming: they do not count. */
  reachedBefore: number
}

const never = <T>(): Promise<T> => new Promise<T>(() => {})

/** What a crashed bot's idle() rejects with: the bot is gone, and where it died. */
export class BackendCrashedError extends BotmeshError {
  /** Where the crash happened. */
  readonly site: CrashSite

  constructor(site: CrashSite) {
    super(
      ERROR_CODES.BACKEND_CRASHED,
      `the bot's backend crashed (crashable: ${site.when} '${site.point}' #${site.occurrence}): this bot is gone; ` +
        'start a new bot on the unwrapped backend with the same instanceId',
    )
    this.site = site
  }
}

export class CrashableBackend implements DurabilityBackend {
  readonly kind: string
  readonly shared: boolean
  readonly scoped: boolean
  /** How many times each write was reached (made or attempted), for coverage checks. */
  readonly reached = new Map<WriteName, number>()
  #armed: Armed | undefined
  /** Calls handed to the wrapped backend and not settled yet. */
  readonly #inFlight = new Set<Promise<unknown>>()
  #crash: CrashSite | undefined
  #onCrash: (() => void)[] = []
  #halted: Promise<Error> | undefined
  /** The backend it wraps. */
  readonly inner: DurabilityBackend
  /**
   * @internal The wrapped backend's steps, each one a crash point; absent when it speaks none, so
   * the engine chosen for a wrapped backend is the one chosen for it unwrapped (engine-choice.ts).
   */
  readonly steps?: (scopeId: string) => JournalSteps

  constructor(inner: DurabilityBackend) {
    this.inner = inner
    this.kind = inner.kind
    this.shared = inner.shared
    this.scoped = inner.scoped
    const speaking = inner as DurabilityBackend & { steps?: (scopeId: string) => JournalSteps }
    if (typeof speaking.steps === 'function') this.steps = (scopeId) => this.#crashableSteps(speaking.steps!(scopeId))
  }

  /**
   * Crash right before the `nth` write named `point` from now on: it never reaches the backend. May
   * be armed at any moment (inside a handler, after that point was already reached); arming again
   * replaces the earlier arming.
   */
  crashBefore(point: CrashPoint, options: { nth?: number } = {}): this {
    return this.#arm(point, 'before', options.nth ?? 1)
  }

  /** Crash right after the `nth` write named `point` from now on landed (armed at any moment, as crashBefore). */
  crashAfter(point: CrashPoint, options: { nth?: number } = {}): this {
    return this.#arm(point, 'after', options.nth ?? 1)
  }

  /** Crash now, wherever the bot is. */
  crashNow(): void {
    this.#crash ??= { point: 'inbox.admit', when: 'before', occurrence: 0 }
    this.#fire()
  }

  /** Whether the crash happened. */
  get crashed(): boolean {
    return this.#crash !== undefined
  }

  /** Where the crash happened, once it did. */
  get crashSite(): CrashSite | undefined {
    return this.#crash
  }

  /** Resolves when the crash happens. */
  whenCrashed(): Promise<CrashSite> {
    if (this.#crash) return Promise.resolve(this.#crash)
    return new Promise((resolve) => this.#onCrash.push(() => resolve(this.#crash!)))
  }

  /** Resolves with a `BackendCrashedError` when the crash happens (the bot's start, idle and stop settle then). */
  whenHalted(): Promise<Error> {
    // One promise for every caller: a bot asks at each idle() and stop().
    this.#halted ??= this.whenCrashed().then((site) => new BackendCrashedError(site))
    return this.#halted
  }

  /** Starts the wrapped backend; refused once crashed. */
  start(): Promise<void> {
    return this.#gate(() => this.inner.start())
  }

  /** Stops the wrapped backend; refused once crashed. */
  stop(): Promise<void> {
    return this.#gate(() => this.inner.stop())
  }

  now(): Promise<number> {
    return this.#gate(() => this.inner.now())
  }

  /** The wrapped backend's scopes; refused once crashed. */
  scopes(): Promise<string[]> {
    return this.#gate(() => this.inner.scopes())
  }

  /** The wrapped journal, whose writes stop at the chosen crash point. */
  journal(scopeId: string): Journal {
    const inner = this.inner.journal(scopeId)
    const self = this
    return {
      scopeId,
      read: (kind, ids) => self.#gate(() => inner.read(kind, ids)),
      due: (kind, until, limit) => self.#gate(() => inner.due(kind, until, limit)),
      list: (kind, query: JournalListQuery) => self.#gate(() => inner.list(kind, query)),
      count: (kind: RecordKind) => self.#gate(() => inner.count(kind)),
      write: (name: WriteLabel, writes: readonly JournalWrite[]) => self.#write(name, () => inner.write(name, writes)),
      purge: (kind, state, olderThan, limit) => self.#write('retention.purge', () => inner.purge(kind, state, olderThan, limit)),
      countOlder: (kind, state, olderThan, limit) => self.#gate(() => inner.countOlder(kind, state, olderThan, limit)),
    } as Journal
  }

  #crashableSteps(inner: JournalSteps): JournalSteps {
    return {
      admit: (record, claim, done) => this.#step('steps.admit', (answer) => inner.admit(record, claim, answer), done),
      journal: (inbound, records, done) => this.#step('steps.journal', (answer) => inner.journal(inbound, records, answer), done),
      settle: (settle, claim, done) => this.#step('steps.settle', (answer) => inner.settle(settle, claim, answer), done),
      takeBack: (claim, pass, done) => this.#step('steps.takeBack', (answer) => inner.takeBack(claim, pass, answer), done),
    }
  }

  /** One step through the wrapper: from the crash on, it never reaches the store and never answers. */
  #step<O>(point: StepCrashPoint, call: (answer: (outcome: O) => void) => void, done: (outcome: O) => void): void {
    if (this.#crash) return
    const hit = this.#reach(point)
    if (hit?.when === 'before') return this.#crashAt(hit)
    let answered!: () => void
    void this.#track(new Promise<void>((resolve) => (answered = resolve)))
    call((outcome) => {
      answered()
      if (this.#crash) return
      // A step the store refused wrote nothing: like a write that failed, it is no crash after it.
      if (hit && !isUnavailable(outcome)) return this.#crashAt(hit)
      done(outcome)
    })
  }

  /** Counts a write or step reached; resolves to the arming whose occurrence this is (it crashes before or after it). */
  #reach(label: WriteLabel): Armed | undefined {
    // A merged write reaches each of its names: crashing at one of them crashes the whole write.
    let hit = false
    for (const name of writeNames(label)) {
      const occurrence = (this.reached.get(name) ?? 0) + 1
      this.reached.set(name, occurrence)
      hit ||= this.#armed?.point === name && occurrence - this.#armed.reachedBefore === this.#armed.nth
    }
    return hit ? this.#armed : undefined
  }

  /** Crashes at the arming's point, on its side (the arming as it was when the point was reached). */
  #crashAt(armed: Armed): void {
    this.#crash = { point: armed.point, when: armed.when, occurrence: armed.nth }
    this.#fire()
  }

  #arm(point: CrashPoint, when: 'before' | 'after', nth: number): this {
    if (!Number.isInteger(nth) || nth < 1)
      throw new RangeError(
        `crash${when === 'before' ? 'Before' : 'After'}('${point}', { nth: ${nth} }): nth must be an integer of at least 1`,
      )
    // Counted from here: `reached` counts from the wrapper's creation, which a test arming mid-run has long passed.
    this.#armed = { point, when, nth, reachedBefore: this.reached.get(point) ?? 0 }
    return this
  }

  async #write<T extends JournalWriteResult[] | number>(label: WriteLabel, write: () => Promise<T>): Promise<T> {
    if (this.#crash) return never()
    const hit = this.#reach(label)
    if (hit?.when === 'before') {
      this.#crashAt(hit)
      return never()
    }
    const result = await this.#track(write())
    if (this.#crash) return never()
    if (hit) {
      this.#crashAt(hit)
      return never()
    }
    return result
  }

  async #gate<T>(call: () => Promise<T>): Promise<T> {
    if (this.#crash) return never()
    const result = await this.#track(call())
    if (this.#crash) return never()
    return result
  }

  /**
   * Resolves once every call that reached the wrapped backend has settled. After a crash this is
   * when the dead run's last writes have landed (or failed), as a killed process's do moments after
   * it died; a restart that must not race them waits for it.
   */
  async quiet(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight])
  }

  #track<T>(call: Promise<T>): Promise<T> {
    this.#inFlight.add(call)
    const done = () => this.#inFlight.delete(call)
    call.then(done, done)
    return call
  }

  #fire(): void {
    for (const listener of this.#onCrash.splice(0)) listener()
  }
}

/** Whether a step's answer says the store refused it (nothing known written). */
function isUnavailable(outcome: unknown): boolean {
  return typeof outcome === 'object' && outcome !== null && (outcome as { type?: unknown }).type === 'unavailable'
}

/** Wraps a backend so a test can crash a bot at a named journal write. */
export function crashable(backend: DurabilityBackend): CrashableBackend {
  return new CrashableBackend(backend)
}
