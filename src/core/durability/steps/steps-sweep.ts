/**
 * The steps engine's sweep: one `takeBack` step takes back the chats' head messages that are due
 * (leases over or an earlier run's of this instance, retries due, operators' replays) in their
 * chats' order, dead-lettering those whose runs were spent; the sends due go through the outbox's
 * sweep (sweeper.ts without its inbound half).
 */
import type { DurabilityEngine } from '../engine.js'
import { journalFailure } from '../journal/guarded-journal.js'
import type { InboxRecord } from '../journal/records.js'
import { LIMITS } from '../limits.js'
import type { Sweeper } from '../sweep/sweeper.js'
import type { JournalSteps, StepClaim, StepUnavailable, TakenBack } from './journal-steps.js'

export class StepsSweep {
  /** Messages the sweeps took back to run, by id. */
  readonly #takenBack = new Set<string>()

  constructor(
    private readonly engine: DurabilityEngine,
    private readonly steps: JournalSteps,
    private readonly sends: Sweeper,
  ) {}

  get lastSweepAt(): number | null {
    return this.sends.lastSweepAt
  }

  get takenBack(): { inbox: number; outbox: number } {
    return { inbox: this.#takenBack.size, outbox: this.sends.takenBack.outbox }
  }

  /** One pass: `run` runs each message taken back; none is taken while `hasRoom` says the process holds enough. */
  async sweep(claim: StepClaim, run: (record: InboxRecord) => void, hasRoom: () => boolean): Promise<number> {
    await this.engine.clock.sync()
    await this.sends.sweep(() => undefined)
    if (!hasRoom()) return 0
    const taken = await this.#takeBack(claim)
    for (const { record, dead } of taken) {
      if (dead) {
        this.engine.metrics.increment('inboundDead')
        this.engine.events.dead({ kind: 'inbox', id: record.id, error: record.lastError })
        continue
      }
      if (record.attempts > 1) this.engine.metrics.increment('inboundReplayed')
      this.#takenBack.add(record.id)
      run(record)
    }
    return taken.length
  }

  #takeBack(claim: StepClaim): Promise<readonly TakenBack[]> {
    return new Promise((resolve, reject) =>
      this.steps.takeBack(claim, this.engine.config.inbox.maxAttempts, LIMITS.sweepBatchMax, (taken) =>
        'type' in taken
          ? reject(journalFailure(this.engine.scopeId, (taken as StepUnavailable).error, 'take back due messages'))
          : resolve(taken),
      ),
    )
  }
}
