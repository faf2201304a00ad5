/**
 * Simulated time for a crash case on a backend with no clock of its own (memory, file, SQLite):
 * the work run under it (`enter`) sees a clock that moves only when that work has nothing left to
 * do but wait for a timer. Then the earliest timer fires, at its due time, one at a time. Which
 * timer fires first (a lease heartbeat or the end of a slow send, a poll or a backoff) is then
 * decided by the due times alone, never by how fast a busy host runs the process.
 *
 * Timers, Date.now and process.hrtime are replaced process-wide while some simulated time runs, but only code
 * running in its async context gets simulated ones: the caller's own timers (the case's deadline,
 * a test runner's, the CLI's progress) stay real.
 */
import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks'
import { SIMULATED_TIME_LIMITS } from './limits.js'

const real = {
  setTimeout: globalThis.setTimeout,
  clearTimeout: globalThis.clearTimeout,
  setInterval: globalThis.setInterval,
  clearInterval: globalThis.clearInterval,
  setImmediate: globalThis.setImmediate,
  now: Date.now,
  hrtime: process.hrtime,
}

const context = new AsyncLocalStorage<SimulatedTime>()
let installed = 0

/** A timer of simulated time; it has what callers use of a Node timer (unref, ref, refresh). */
class SimulatedTimer {
  constructor(
    readonly time: SimulatedTime,
    readonly id: number,
    readonly callback: () => void,
    readonly delayMs: number,
    readonly repeat: boolean,
    public dueMs: number,
  ) {}
  ref(): this {
    return this
  }
  unref(): this {
    return this
  }
  hasRef(): boolean {
    return true
  }
  refresh(): this {
    this.time.rearm(this)
    return this
  }
  [Symbol.toPrimitive](): number {
    return this.id
  }
}

/**
 * Work still running outside JavaScript: a request in flight (a file read, write, fsync or close, a
 * crypto job) or a callback queued for this turn. Time must not move while one runs: timers fired
 * meanwhile would be as many as the request took real time.
 */
function busy(): 'turn' | 'io' | undefined {
  const resources = process.getActiveResourcesInfo()
  if (resources.includes('Immediate')) return 'turn'
  if (resources.some((name) => /req|job/i.test(name))) return 'io'
  return undefined
}

export class SimulatedTime {
  #nowMs: number
  #sequence = 0
  #driving = false
  readonly #timers = new Map<number, SimulatedTimer>()

  /** Starts at `startMs` (default: the local time, in whole ms, so journaled times look like real ones). */
  constructor(startMs: number = Math.floor(real.now())) {
    this.#nowMs = startMs
  }

  /** The simulated time now (bound, for a `durability.clock` option). */
  readonly now = (): number => this.#nowMs

  /** Starts moving the clock whenever the work entered is only waiting for a timer. */
  start(): void {
    if (this.#driving) return
    this.#driving = true
    if (installed++ === 0) install()
    real.setImmediate(this.#step)
  }

  /** Runs `work` on this simulated time (its timers, and theirs, are simulated). */
  enter<T>(work: () => Promise<T>): Promise<T> {
    return context.run(this, work)
  }

  /**
   * Stops the clock. Timers still pending (an abandoned bot's loops) go on real timers with the time
   * they had left, and the work's new timers are real from now on, as before `start`.
   */
  stop(): void {
    if (!this.#driving) return
    this.#driving = false
    if (--installed === 0) uninstall()
    for (const timer of this.#timers.values()) {
      const left = Math.max(1, timer.dueMs - this.#nowMs)
      if (timer.repeat) real.setInterval(timer.callback, left).unref()
      else real.setTimeout(timer.callback, left).unref()
    }
    this.#timers.clear()
  }

  /** Whether this time is running (a timer asked for now is simulated). */
  get driving(): boolean {
    return this.#driving
  }

  add(callback: () => void, delayMs: unknown, repeat: boolean): SimulatedTimer {
    const delay = Number(delayMs) >= 1 ? Math.floor(Number(delayMs)) : 1
    const timer = new SimulatedTimer(this, ++this.#sequence, callback, delay, repeat, this.#nowMs + delay)
    this.#timers.set(timer.id, timer)
    return timer
  }

  clear(timer: SimulatedTimer): void {
    this.#timers.delete(timer.id)
  }

  rearm(timer: SimulatedTimer): void {
    // A refreshed timer goes behind the timers due at the same time, as a new one would.
    this.#timers.delete(timer.id)
    timer.dueMs = this.#nowMs + timer.delayMs
    this.#timers.set(timer.id, timer)
  }

  /** One look, on a turn of the real event loop: fire the next timer if nothing else is left to do. */
  readonly #step = (): void => {
    if (!this.#driving) return
    const state = busy()
    if (state === 'turn') return void real.setImmediate(this.#step)
    if (state === 'io') return void real.setTimeout(this.#step, 1)
    const next = this.#next()
    // Nothing due at all: the work waits on something outside (a hang the case's deadline will end).
    if (!next) return void real.setTimeout(this.#step, SIMULATED_TIME_LIMITS.idleLookMs)
    real.setImmediate(this.#step)
    this.#nowMs = Math.max(this.#nowMs, next.dueMs)
    if (next.repeat) this.rearm(next)
    else this.#timers.delete(next.id)
    next.callback()
  }

  /** The earliest timer; of those due at the same time, the first set. */
  #next(): SimulatedTimer | undefined {
    let next: SimulatedTimer | undefined
    for (const timer of this.#timers.values()) {
      if (!next || timer.dueMs < next.dueMs || (timer.dueMs === next.dueMs && timer.id < next.id)) next = timer
    }
    return next
  }
}

/** The simulated time the calling code runs on, if any is running. */
function current(): SimulatedTime | undefined {
  const time = context.getStore()
  return time?.driving ? time : undefined
}

type Callback = (...args: unknown[]) => void

function install(): void {
  const timer = (repeat: boolean, fallback: typeof real.setTimeout) =>
    function (callback: Callback, delayMs?: number, ...args: unknown[]) {
      const time = current()
      if (!time) return fallback(callback, delayMs, ...args)
      // It fires in the async context it was set in, as a real timer does (the case's, the handler's).
      return time.add(
        AsyncResource.bind(() => callback(...args)),
        delayMs,
        repeat,
      )
    }
  const clear = (fallback: typeof real.clearTimeout) =>
    function (handle: unknown) {
      if (handle instanceof SimulatedTimer) handle.time.clear(handle)
      else fallback(handle as NodeJS.Timeout)
    }
  Object.assign(globalThis, {
    setTimeout: timer(false, real.setTimeout),
    setInterval: timer(true, real.setInterval as typeof real.setTimeout),
    clearTimeout: clear(real.clearTimeout),
    clearInterval: clear(real.clearInterval),
  })
  Date.now = () => current()?.now() ?? real.now()
  // The host's monotonic clock too (SQLite's host clock reads it): on simulated time it is that time.
  process.hrtime = Object.assign(
    (previous?: [number, number]) => {
      const time = current()
      if (!time) return real.hrtime(previous)
      const ns = BigInt(time.now()) * 1_000_000n - (previous ? BigInt(previous[0]) * 1_000_000_000n + BigInt(previous[1]) : 0n)
      return [Number(ns / 1_000_000_000n), Number(ns % 1_000_000_000n)] as [number, number]
    },
    { bigint: () => (current() ? BigInt(current()!.now()) * 1_000_000n : real.hrtime.bigint()) },
  )
}

function uninstall(): void {
  Object.assign(globalThis, {
    setTimeout: real.setTimeout,
    setInterval: real.setInterval,
    clearTimeout: real.clearTimeout,
    clearInterval: real.clearInterval,
  })
  Date.now = real.now
  process.hrtime = real.hrtime
}
