/**
 * When appendLog mode folds its log into the snapshot: once the log holds `compactEvery` records
 * or `compactBytes` bytes, one fold scheduled at a time. After a failed fold the next try waits
 * for as many records or bytes again, so a failing disk is not hit on every append (the log keeps
 * every record meanwhile).
 */
export class CompactionTrigger {
  readonly #every: { records: number; bytes: number }
  #at: { records: number; bytes: number }
  #scheduled = false
  /** The error of the last fold, if it failed. */
  error: unknown

  constructor(every: { records: number; bytes: number }) {
    this.#every = every
    this.#at = { ...every }
  }

  /** Whether a log this long is due a fold not scheduled yet; if so, it counts as scheduled from now. */
  schedule(log: { records: number; size: number }): boolean {
    if (this.#scheduled || (log.records < this.#at.records && log.size < this.#at.bytes)) return false
    this.#scheduled = true
    return true
  }

  /** A fold starts, scheduled or not: the next append may schedule another. */
  started(): void {
    this.#scheduled = false
  }

  succeeded(): void {
    this.#at = { ...this.#every }
    this.error = undefined
  }

  /** A scheduled fold failed with the log this long. */
  failed(error: unknown, log: { records: number; size: number }): void {
    this.error = error
    this.#at = { records: log.records + this.#every.records, bytes: log.size + this.#every.bytes }
  }
}
