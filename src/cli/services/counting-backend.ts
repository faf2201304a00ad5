/**
 * A wrapper that counts the calls a bot makes to its backend: each journal verb and each clock
 * read is one round trip to the store (a batch of writes is one call, as the backends send it).
 * `bench` divides the count by the messages handled, and the records those writes carried (each
 * one compare-and-set) likewise. Calls of the bot's background loops (the sweeper's looks for due
 * work, counts, purges and clock reads, the instance heartbeat) are also counted apart, so the
 * message path's own round trips can be read. Counting is a wrapper, never a flag.
 */
import type { DurabilityBackend, Journal } from '../../core/durability/journal/backend.js'
import type { WriteLabel } from '../../core/durability/journal/crash-points.js'
import type { JournalSteps } from '../../core/durability/steps/journal-steps.js'

/** Writes of the background loops, not of a message. */
const BACKGROUND_WRITES: readonly WriteLabel[] = ['instances.beat']

/** Calls per verb. */
export type CallCounts = Record<'read' | 'write' | 'due' | 'list' | 'count' | 'purge' | 'now' | 'step', number>

/** The counts at one moment, apart from the counting that goes on. */
export interface CallTally {
  calls: CallCounts
  total: number
  background: number
  recordsWritten: number
}

export class CountingBackend implements DurabilityBackend {
  readonly kind: string
  readonly shared: boolean
  readonly scoped: boolean
  readonly calls: CallCounts = { read: 0, write: 0, due: 0, list: 0, count: 0, purge: 0, now: 0, step: 0 }
  /** The steps of a scope, each step one call, when the backend speaks them (the steps engine's path). */
  readonly steps?: (scopeId: string) => JournalSteps
  /** Records written (puts and deletes) by every write call since the last reset. */
  recordsWritten = 0
  /** Calls of the background loops since the last reset (in `calls` too). */
  background = 0
  /** Records the retention passes deleted since the last reset (what the purge calls returned). */
  recordsPurged = 0

  constructor(readonly inner: DurabilityBackend) {
    this.kind = inner.kind
    this.shared = inner.shared
    this.scoped = inner.scoped
    const speaking = inner as DurabilityBackend & { steps?: (scopeId: string) => JournalSteps }
    if (typeof speaking.steps === 'function') this.steps = (scopeId) => this.#countedSteps(speaking.steps!(scopeId))
  }

  #countedSteps(inner: JournalSteps): JournalSteps {
    const calls = this.calls
    return {
      admit: (record, claim, done) => (calls.step++, (this.recordsWritten += 1), inner.admit(record, claim, done)),
      journal: (inbound, records, done) => (calls.step++, (this.recordsWritten += records.length), inner.journal(inbound, records, done)),
      settle: (settle, claim, done) => (calls.step++, (this.recordsWritten += settle.marks.length + 1), inner.settle(settle, claim, done)),
      takeBack: (claim, pass, done) => (calls.step++, this.background++, inner.takeBack(claim, pass, done)),
    }
  }

  /** Every call since the last reset. */
  get total(): number {
    return Object.values(this.calls).reduce((sum, n) => sum + n, 0)
  }

  /** The counts now, a copy. */
  tally(): CallTally {
    return { calls: { ...this.calls }, total: this.total, background: this.background, recordsWritten: this.recordsWritten }
  }

  reset(): void {
    for (const verb of Object.keys(this.calls) as (keyof CallCounts)[]) this.calls[verb] = 0
    this.recordsWritten = 0
    this.background = 0
    this.recordsPurged = 0
  }

  start(): Promise<void> {
    return this.inner.start()
  }

  stop(): Promise<void> {
    return this.inner.stop()
  }

  now(): Promise<number> {
    this.calls.now++
    this.background++
    return this.inner.now()
  }

  scopes(): Promise<string[]> {
    return this.inner.scopes()
  }

  journal(scopeId: string): Journal {
    const inner = this.inner.journal(scopeId)
    const calls = this.calls
    const written = (n: number) => (this.recordsWritten += n)
    const background = () => this.background++
    const purged = (n: number) => ((this.recordsPurged += n), n)
    return {
      scopeId,
      read: (kind, ids) => (calls.read++, inner.read(kind, ids)),
      write: (name, writes) => (
        calls.write++,
        BACKGROUND_WRITES.includes(name) && background(),
        written(writes.length),
        inner.write(name, writes)
      ),
      due: (kind, until, limit) => (calls.due++, background(), inner.due(kind, until, limit)),
      list: (kind, query) => (calls.list++, inner.list(kind, query)),
      count: (kind) => (calls.count++, background(), inner.count(kind)),
      purge: (kind, state, olderThan, limit) => (calls.purge++, background(), inner.purge(kind, state, olderThan, limit).then(purged)),
      countOlder: (kind, state, olderThan, limit) => (calls.count++, background(), inner.countOlder(kind, state, olderThan, limit)),
    }
  }
}
