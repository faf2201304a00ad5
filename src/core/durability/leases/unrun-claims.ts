/**
 * Inbound records this run of the bot claimed without running them: the claim's journal write
 * failed although it may have landed (a connection dropped before the answer; `waitReplicas` timed
 * out while the replicas were away). A claim charges the run that follows it, and none followed.
 * When the sweeper finds such a record again still under that claim (this run's lease, the token it
 * wrote), its next run is the one already charged: taking it charges nothing. Otherwise a store away
 * for a few leases would spend an acknowledged message's runs and dead-letter it unrun. The sweeper
 * takes it back at its next pass, not once the lease it wrote ran out: meanwhile the chat's new
 * messages would run ahead of it.
 *
 * Forgetting an entry is always safe (the record is then charged as any other), so the map is
 * bounded by dropping its oldest entries.
 */
import type { InboxRecord } from '../journal/records.js'
import { LIMITS } from '../limits.js'

export class UnrunClaims {
  /** Record id → the fencing token its unanswered claim wrote. */
  readonly #tokens = new Map<string, number>()

  constructor(private readonly incarnation: string) {}

  /** After a claim's journal write of `claimed` failed: it may have landed. */
  unanswered(claimed: InboxRecord): void {
    this.#tokens.delete(claimed.id)
    this.#tokens.set(claimed.id, claimed.fencingToken)
    if (this.#tokens.size > LIMITS.unrunClaimsMax) this.#tokens.delete(this.#tokens.keys().next().value!)
  }

  /** The records claimed so, for the sweep to take back at once: nobody runs them (sweeper.ts). */
  ids(): string[] {
    return [...this.#tokens.keys()]
  }

  /** Whether `lease` on record `id` is the one an unanswered claim of this run wrote: no run holds it, so it is over. */
  wrote(id: string, lease: NonNullable<InboxRecord['lease']>): boolean {
    return this.#tokens.get(id) === lease.token && lease.incarnation === this.incarnation
  }

  /** Record `id` is no longer under that claim (another run took it, it settled): nothing to take back. */
  forget(id: string): void {
    this.#tokens.delete(id)
  }

  /** Whether `record` is still under an unanswered claim of this run, whose charge no run has used; forgets it. */
  taken(record: InboxRecord): boolean {
    const token = this.#tokens.get(record.id)
    if (token === undefined) return false
    this.#tokens.delete(record.id)
    return record.fencingToken === token && record.lease?.incarnation === this.incarnation
  }
}
