/**
 * The leases of the messages the steps engine runs, kept alive while their handlers run: every
 * lease period, LIMITS.heartbeatsPerLease times, each one's expiry is moved on, unless its run was
 * fenced meanwhile (its token is no longer the record's). A renewal is a compare-and-set of the
 * journal's own record, on any store: rare next to the steps, it needs no step of its own.
 */
import type { DurabilityEngine } from '../engine.js'
import { LIMITS } from '../limits.js'
import { BackgroundLoop } from '../loop.js'
import type { InboxRecord } from '../journal/records.js'
import { isFenced } from './step-rules.js'

export class HeldLeases {
  /** The token of each message this process runs, by id. */
  readonly #held = new Map<string, number>()

  constructor(private readonly engine: DurabilityEngine) {}

  add(record: InboxRecord): void {
    this.#held.set(record.id, record.fencingToken)
  }

  delete(id: string): void {
    this.#held.delete(id)
  }

  holds(id: string): boolean {
    return this.#held.has(id)
  }

  /** The loop that renews the held leases, LIMITS.heartbeatsPerLease times a lease period. */
  heartbeat(): BackgroundLoop {
    const engine = this.engine
    return new BackgroundLoop(
      'lease-heartbeat',
      () => engine.config.inbox.leaseMs / LIMITS.heartbeatsPerLease,
      () => this.renew(),
      engine.events.error,
    )
  }

  /** Moves every held lease on by a lease period from now. */
  async renew(): Promise<void> {
    if (this.#held.size === 0) return
    const engine = this.engine
    const found = await engine.journal.read('inbox', [...this.#held.keys()])
    const writes = []
    for (const entry of found) {
      if (!entry) continue
      const { record, version } = entry
      const token = this.#held.get(record.id)
      if (token === undefined || isFenced(record, token)) continue
      const lease = { ...record.lease!, expiresAt: engine.now() + engine.config.inbox.leaseMs }
      writes.push({ kind: 'inbox' as const, record: { ...record, lease }, expectVersion: version })
    }
    if (writes.length > 0) await engine.journal.write('inbox.heartbeat', writes)
  }
}
