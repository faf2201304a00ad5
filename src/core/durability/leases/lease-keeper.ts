/**
 * Keeps the leases of held records alive: while a handler or a provider call runs, its record's
 * lease is extended before it can expire, so a slow upload is never taken for an abandoned send.
 */
import type { BackendClock } from './clock.js'
import type { HeldRecord } from './held-record.js'
import { BackgroundLoop } from '../loop.js'
import { LIMITS } from '../limits.js'

export class LeaseKeeper {
  readonly #held = new Set<HeldRecord>()
  readonly #loop: BackgroundLoop

  constructor(
    private readonly clock: BackendClock,
    private readonly leaseMs: { inbox: number; outbox: number },
    onError: (error: unknown) => void,
  ) {
    const periodMs = Math.max(5, Math.floor(Math.min(leaseMs.inbox, leaseMs.outbox) / LIMITS.heartbeatsPerLease))
    this.#loop = new BackgroundLoop(
      'lease-keeper',
      () => periodMs,
      () => this.#renew(),
      onError,
    )
  }

  /** Whether this process holds the record now. */
  holds(kind: 'inbox' | 'outbox', id: string): boolean {
    for (const held of this.#held) if (held.kind === kind && held.id === id) return true
    return false
  }

  /** The tokens of every record held now, for a restarted instance telling its own leases from a dead incarnation's. */
  heldTokens(): Set<string> {
    return new Set([...this.#held].map((held) => `${held.kind}:${held.id}:${held.record.lease?.token}`))
  }

  add(held: HeldRecord): void {
    this.#held.add(held)
    this.#loop.start(false)
  }

  remove(held: HeldRecord): void {
    this.#held.delete(held)
  }

  async stop(): Promise<void> {
    await this.#loop.stop()
  }

  async #renew(): Promise<void> {
    const now = this.clock.now()
    const renewals: Promise<boolean>[] = []
    for (const held of this.#held) {
      const lease = held.record.lease
      const leaseMs = this.leaseMs[held.kind]
      if (!lease || held.lost) continue
      // Renew once a third of the lease has passed; the write itself must land before expiry.
      if (lease.expiresAt - now > leaseMs - leaseMs / LIMITS.heartbeatsPerLease) continue
      const name = held.kind === 'inbox' ? 'inbox.heartbeat' : 'outbox.heartbeat'
      renewals.push(
        held.update(name, (record) => ({ ...record, lease: { ...record.lease!, expiresAt: this.clock.now() + leaseMs } }) as typeof record),
      )
    }
    await Promise.all(renewals)
  }
}
