/**
 * The leader-only transport session (`providerSession: 'leader'`, e.g. one WhatsApp Web session at a
 * time): the replicas elect one holder by a lease in the journal (records.ts SessionRecord, claimed
 * by compare-and-set under a fencing token), renewed by a heartbeat. Only the holder starts its
 * transport; when it dies or freezes, another replica takes the session once the lease is over, and
 * only then starts its own. A holder that finds the session taken stops its transport.
 */
import { nextToken } from '../leases/fencing.js'
import type { Versioned } from '../journal/backend.js'
import type { DurabilityEngine } from '../engine.js'
import { LIMITS } from '../limits.js'
import { BackgroundLoop } from '../loop.js'
import type { SessionRecord } from '../journal/records.js'

/** The key of the transport session's record. */
export const TRANSPORT_SESSION = 'transport'

export interface SessionLeaderHooks {
  /** Starts the transport: this replica just became the leader. */
  elected(): Promise<void>
  /** Stops the transport: the session passed on to another replica. */
  deposed(): Promise<void>
}

export class SessionLeader {
  /** Our session record while we hold it. */
  #held: Versioned<SessionRecord> | undefined
  readonly #loop: BackgroundLoop

  constructor(
    private readonly engine: DurabilityEngine,
    private readonly leaseMs: number,
    private readonly hooks: SessionLeaderHooks,
  ) {
    const periodMs = Math.max(5, Math.floor(leaseMs / LIMITS.heartbeatsPerLease))
    this.#loop = new BackgroundLoop(
      'transport-session',
      () => periodMs,
      () => this.#tick(),
      (error) => engine.events.error(error),
    )
  }

  /** Whether this replica holds the session now (by its own view of the lease: a frozen holder that resumes is not). */
  isLeader(): boolean {
    const holder = this.#held?.record.holder
    return holder !== undefined && holder !== null && holder.expiresAt > this.engine.now()
  }

  /** Tries once to take the session (so a lone replica starts its transport at once), then keeps at it. */
  async start(): Promise<void> {
    await this.#tick().catch((error) => this.engine.events.error(error))
    this.#loop.start(false)
  }

  /** Stops the heartbeat and hands the session back, so a standby takes it without waiting for the lease. */
  async stop(): Promise<void> {
    await this.#loop.stop()
    const held = this.#held
    this.#held = undefined
    if (!held) return
    const released: SessionRecord = { ...held.record, holder: null, updatedAt: this.engine.now() }
    await this.engine.journal.write('session.release', [{ kind: 'sessions', record: released, expectVersion: held.version }])
  }

  async #tick(): Promise<void> {
    if (this.#held) return this.#renew(this.#held)
    const [found] = await this.engine.journal.read('sessions', [TRANSPORT_SESSION])
    const holder = found?.record.holder
    const now = this.engine.now()
    if (holder && holder.expiresAt > now && !this.engine.isEarlierIncarnation(holder)) return
    const token = nextToken(found?.record)
    const record: SessionRecord = {
      name: TRANSPORT_SESSION,
      holder: { ...this.engine.lease('outbox', token), expiresAt: now + this.leaseMs },
      fencingToken: token,
      updatedAt: now,
    }
    const [result] = await this.engine.journal.write('session.claim', [{ kind: 'sessions', record, expectVersion: found?.version ?? 0 }])
    if (!result!.ok) return
    this.#held = { record, version: result!.version }
    await this.hooks.elected()
  }

  async #renew(held: Versioned<SessionRecord>): Promise<void> {
    const now = this.engine.now()
    const record: SessionRecord = { ...held.record, holder: { ...held.record.holder!, expiresAt: now + this.leaseMs }, updatedAt: now }
    const [result] = await this.engine.journal.write('session.heartbeat', [{ kind: 'sessions', record, expectVersion: held.version }])
    if (result!.ok) {
      this.#held = { record, version: result!.version }
      return
    }
    // Taken over while we could not renew (frozen, or cut off from the backend): another replica leads.
    this.#held = undefined
    this.engine.metrics.increment('staleLeases')
    this.engine.events.warn('durability: the transport session passed on to another replica; stopping this replica’s transport')
    await this.hooks.deposed()
  }
}
