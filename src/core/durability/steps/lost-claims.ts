/**
 * Claims of this run whose answer was lost: a `settle` that may have handed its chat's next message
 * over, or a `takeBack` that may have claimed messages, landed while the store's answer did not
 * reach the process (a dropped connection; `waitReplicas` timing out on a promoted primary). Nothing
 * runs such a message, and without this it would wait out the lease it was claimed under and be
 * charged a run again then (an admission's lost claim is the channel's redelivery: `isUnrunClaim`).
 *
 * After such a step the next sweep lists the messages processing under this run's lease that no run
 * of the process holds, and runs them on the run their claim charged. A claim whose answer is merely
 * late is run once either way: a message already running here is not started again.
 */
import type { DurabilityEngine } from '../engine.js'
import type { InboxRecord } from '../journal/records.js'
import { listAll } from '../sweep/sweeper.js'
import type { StepClaim } from './journal-steps.js'

export class LostClaims {
  #suspected = false

  constructor(private readonly engine: DurabilityEngine) {}

  /** A step that may have claimed a message failed: its claim may have landed. */
  suspect(): void {
    this.#suspected = true
  }

  /**
   * The messages claimed by `claim`'s run (owner and incarnation) that `runs` does not hold, once a
   * claim was suspected lost; none otherwise. A read that fails leaves the suspicion for the next sweep.
   */
  async find(claim: StepClaim, runs: (id: string) => boolean): Promise<InboxRecord[]> {
    if (!this.#suspected) return []
    this.#suspected = false
    try {
      const processing = await listAll(this.engine, 'inbox', 'processing')
      return processing.flatMap(({ record }) => {
        const lease = record.lease
        return lease?.owner === claim.owner && lease.incarnation === claim.incarnation && !runs(record.id) ? [record] : []
      })
    } catch (error) {
      this.#suspected = true
      throw error
    }
  }
}
