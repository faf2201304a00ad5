/**
 * `crashable(backend)`: wraps a durability backend so a test can "kill" the bot at a precise journal
 * write — right before it (the write never happens) or right after it (it happened, nothing after
 * it does). From the crash on, every call through the wrapper never settles, as if the process were
 * gone; start a new bot on the unwrapped backend with the same instanceId to recover.
 */
import type { DurabilityBackend, Journal, JournalListQuery, JournalWrite, JournalWriteResult } from '../durability/backend.js'
import type { CrashPoint, WriteName } from '../durability/crash-points.js'
import type { RecordKind } from '../durability/records.js'

/** Where the crash happened. */
export interface CrashSite {
  point: CrashPoint
  when: 'before' | 'after'
  occurrence: number
}

interface Armed {
  point: CrashPoint
  when: 'before' | 'after'
  /** Crash at this occurrence of the point (1-based). */
  nth: number
}

const never = <T>(): Promise<T> => new Promise<T>(() => {})

export class CrashableBackend implements DurabilityBackend {
  readonly kind: string
  readonly shared: boolean
  readonly scoped: boolean
  /** How many times each write was reached (made or attempted), for coverage checks. */
  readonly reached = new Map<WriteName, number>()
  #armed: Armed | undefined
  #crash: CrashSite | undefined
  #onCrash: (() => void)[] = []

  constructor(readonly inner: DurabilityBackend) {
    this.kind = inner.kind
    this.shared = inner.shared
    this.scoped = inner.scoped
  }

  /** Crash right before the `nth` write named `point`: it never reaches the backend. */
  crashBefore(point: CrashPoint, options: { nth?: number } = {}): this {
    this.#armed = { point, when: 'before', nth: options.nth ?? 1 }
    return this
  }

  /** Crash right after the `nth` write named `point` landed. */
  crashAfter(point: CrashPoint, options: { nth?: number } = {}): this {
    this.#armed = { point, when: 'after', nth: options.nth ?? 1 }
    return this
  }

  /** Crash now, wherever the bot is. */
  crashNow(): void {
    this.#crash ??= { point: 'inbox.admit', when: 'before', occurrence: 0 }
    this.#fire()
  }

  get crashed(): boolean {
    return this.#crash !== undefined
  }

  get crashSite(): CrashSite | undefined {
    return this.#crash
  }

  /** Resolves when the crash happens. */
  whenCrashed(): Promise<CrashSite> {
    if (this.#crash) return Promise.resolve(this.#crash)
    return new Promise((resolve) => this.#onCrash.push(() => resolve(this.#crash!)))
  }

  start(): Promise<void> {
    return this.#gate(() => this.inner.start())
  }

  stop(): Promise<void> {
    return this.#gate(() => this.inner.stop())
  }

  now(): Promise<number> {
    return this.#gate(() => this.inner.now())
  }

  scopes(): Promise<string[]> {
    return this.#gate(() => this.inner.scopes())
  }

  journal(scopeId: string): Journal {
    const inner = this.inner.journal(scopeId)
    const self = this
    return {
      scopeId,
      read: (kind, ids) => self.#gate(() => inner.read(kind, ids)),
      due: (kind, until, limit) => self.#gate(() => inner.due(kind, until, limit)),
      list: (kind, query: JournalListQuery) => self.#gate(() => inner.list(kind, query)),
      count: (kind: RecordKind) => self.#gate(() => inner.count(kind)),
      write: (name: WriteName, writes: readonly JournalWrite[]) => self.#write(name, () => inner.write(name, writes)),
      purge: (kind, state, olderThan, limit) => self.#write('retention.purge', () => inner.purge(kind, state, olderThan, limit)),
    } as Journal
  }

  async #write<T extends JournalWriteResult[] | number>(name: WriteName, write: () => Promise<T>): Promise<T> {
    if (this.#crash) return never()
    const occurrence = (this.reached.get(name) ?? 0) + 1
    this.reached.set(name, occurrence)
    const armed = this.#armed
    const hit = armed !== undefined && armed.point === name && armed.nth === occurrence
    if (hit && armed.when === 'before') {
      this.#crash = { point: armed.point, when: 'before', occurrence }
      this.#fire()
      return never()
    }
    const result = await write()
    if (this.#crash) return never()
    if (hit) {
      this.#crash = { point: armed.point, when: 'after', occurrence }
      this.#fire()
      return never()
    }
    return result
  }

  async #gate<T>(call: () => Promise<T>): Promise<T> {
    if (this.#crash) return never()
    const result = await call()
    if (this.#crash) return never()
    return result
  }

  #fire(): void {
    for (const listener of this.#onCrash.splice(0)) listener()
  }
}

/** Wraps a backend so a test can crash a bot at a named journal write. */
export function crashable(backend: DurabilityBackend): CrashableBackend {
  return new CrashableBackend(backend)
}
