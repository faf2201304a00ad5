/**
 * The steps engine's sweep: one `takeBack` step takes back the chats' head messages that are due
 * (leases over or an earlier run's of this instance, retries due, operators' replays) in their
 * chats' order, dead-lettering those whose runs were spent; the sends due go through the outbox's
 * sweep (sweeper.ts without its inbound half). A last run the pass leaves to run alone waits in
 * alone-runs.ts; while one waits, a sweep takes nothing else, and once nothing runs an alone pass
 * takes it. After a step whose answer was lost, a sweep first runs what it may have claimed
 * (lost-claims.ts).
 */
import type { DurabilityEngine } from '../engine.js'
import { journalFailure } from '../journal/guarded-journal.js'
import type { InboxRecord } from '../journal/records.js'
import { LIMITS } from '../limits.js'
import type { Sweeper } from '../sweep/sweeper.js'
import type { AloneRuns } from './alone-runs.js'
import type { LostClaims } from './lost-claims.js'
import type { JournalSteps, StepClaim, StepUnavailable, TakeBackPass, TakenBack } from './journal-steps.js'

export class StepsSweep {
  /** Messages the sweeps took back to run, by id. */
  readonly #takenBack = new Set<string>()

  constructor(
    private readonly engine: DurabilityEngine,
    private readonly steps: JournalSteps,
    private readonly sends: Sweeper,
    private readonly runs: {
      /** Last runs that run alone. */
      readonly alone: AloneRuns
      /** Claims whose answer was lost. */
      readonly lost: LostClaims
      /** Whether a run of this process holds message `id`. */
      holds(id: string): boolean
    },
  ) {}

  get lastSweepAt(): number | null {
    return this.sends.lastSweepAt
  }

  get takenBack(): { inbox: number; outbox: number } {
    return { inbox: this.#takenBack.size, outbox: this.sends.takenBack.outbox }
  }

  /**
   * One pass: `run` runs each message taken back (`alone`: a last run an alone pass took); none is
   * taken while `hasRoom` says the process holds enough.
   */
  async sweep(claim: StepClaim, run: (record: InboxRecord, alone: boolean) => void, hasRoom: () => boolean): Promise<number> {
    await this.engine.clock.sync()
    await this.sends.sweep(() => undefined)
    const lost = await this.runs.lost.find(claim, (id) => this.runs.holds(id))
    for (const record of lost) run(record, false)
    if (this.runs.alone.closed) return lost.length + (await this.#passAlone(claim, run))
    if (!hasRoom()) return 0
    const taken = await this.#takeBack(claim, undefined)
    // Left to an alone pass first: the runs taken with them wait behind them.
    for (const { record, waitsAlone } of taken) if (waitsAlone) this.runs.alone.waits(record.id)
    for (const { record, dead, waitsAlone } of taken) {
      if (waitsAlone) continue
      if (dead) {
        this.engine.metrics.increment('inboundDead')
        this.engine.events.dead({ kind: 'inbox', id: record.id, error: record.lastError })
        continue
      }
      this.#started(record, run, false)
    }
    const found = lost.length + taken.length
    return this.runs.alone.closed ? found + (await this.#passAlone(claim, run)) : found
  }

  /** Once nothing runs, claims the first last run waiting and runs it alone. */
  async #passAlone(claim: StepClaim, run: (record: InboxRecord, alone: boolean) => void): Promise<number> {
    for (let id = this.runs.alone.next(); id !== undefined; id = this.runs.alone.next()) {
      const [taken] = await this.#takeBack(claim, id)
      if (taken) {
        this.#started(taken.record, run, true)
        return 1
      }
      this.runs.alone.passed(id)
    }
    return 0
  }

  #started(record: InboxRecord, run: (record: InboxRecord, alone: boolean) => void, alone: boolean): void {
    if (record.attempts > 1) this.engine.metrics.increment('inboundReplayed')
    this.#takenBack.add(record.id)
    if (alone) this.runs.alone.goesAlone(record.id)
    run(record, alone)
  }

  #takeBack(claim: StepClaim, alone: string | undefined): Promise<readonly TakenBack[]> {
    const pass: TakeBackPass = { maxAttempts: this.engine.config.inbox.maxAttempts, limit: LIMITS.sweepBatchMax, alone }
    return new Promise((resolve, reject) =>
      this.steps.takeBack(claim, pass, (taken) => {
        if (!('type' in taken)) return resolve(taken)
        // It may have landed: what it claimed runs nowhere.
        this.runs.lost.suspect()
        reject(journalFailure(this.engine.scopeId, (taken as StepUnavailable).error, 'take back due messages'))
      }),
    )
  }
}
