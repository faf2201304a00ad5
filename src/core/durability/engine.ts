/**
 * The durability engine's shared state: the resolved config, the scope's journal, the clock,
 * the counters, the lease keeper and the event sinks. The inbox, outbox and sweeper modules are
 * functions over it; nothing here knows which backend it runs on.
 */
import { randomUUID } from 'node:crypto'
import type { DurabilityBackend, Journal, Versioned } from './journal/backend.js'
import { ChatSequence } from './turns/chat-order.js'
import { ChatTails } from './turns/chat-tails.js'
import { BackendClock } from './leases/clock.js'
import type { DurabilityConfig } from './config.js'
import { guardedJournal } from './journal/guarded-journal.js'
import { HeldRecord } from './leases/held-record.js'
import { LeaseKeeper } from './leases/lease-keeper.js'
import { Metrics } from './metrics.js'
import { UnstartedSends } from './outbox/unstarted-sends.js'
import { UnrunClaims } from './leases/unrun-claims.js'
import type { ErrorInfo, InboxRecord, OutboxRecord } from './journal/records.js'

/** What the engine tells the bot. */
export interface EngineEvents {
  dead(info: { kind: 'inbox' | 'outbox'; id: string; error: ErrorInfo | null }): void
  ambiguous(info: { key: string; chatId: string }): void
  /** A send left ambiguous was settled from the channel's status (`durability:reconciled`). */
  reconciled?(info: { key: string; chatId: string; messageId: string }): void
  warn(message: string): void
  error(error: unknown): void
}

export class DurabilityEngine {
  readonly journal: Journal
  readonly clock: BackendClock
  readonly metrics = new Metrics()
  readonly keeper: LeaseKeeper
  /** This run of the bot: leases of our instanceId under another incarnation are a dead process's. */
  readonly incarnation = randomUUID()
  /** Sends journaled as `sending` whose provider call has not started (see unstarted-sends.ts). */
  readonly unstarted = new UnstartedSends(this.incarnation)
  /** Inbound records this run claimed without running them (see unrun-claims.ts). */
  readonly unrun = new UnrunClaims(this.incarnation)
  /** The sequence numbers of this process's admissions and sends: a chat's order (chat-order.ts). */
  readonly sequence = new ChatSequence()
  /** Each chat's last unfinished message in this process (chat-tails.ts). */
  readonly tails = new ChatTails()

  constructor(
    readonly backend: DurabilityBackend,
    readonly config: DurabilityConfig,
    readonly scopeId: string,
    readonly events: EngineEvents,
  ) {
    this.journal = guardedJournal(backend.journal(scopeId))
    this.clock = new BackendClock(backend, config.clock)
    this.keeper = new LeaseKeeper(this.clock, { inbox: config.inbox.leaseMs, outbox: config.outbox.leaseMs }, (error) =>
      events.error(error),
    )
  }

  get instanceId(): string {
    return this.config.instanceId
  }

  now(): number {
    return this.clock.now()
  }

  /** A lease for this instance, starting now. */
  lease(kind: 'inbox' | 'outbox', token: number): NonNullable<InboxRecord['lease']> {
    const now = this.now()
    const leaseMs = kind === 'inbox' ? this.config.inbox.leaseMs : this.config.outbox.leaseMs
    return { owner: this.instanceId, token, expiresAt: now + leaseMs, acquiredAt: now, incarnation: this.incarnation }
  }

  hold<K extends 'inbox' | 'outbox'>(kind: K, versioned: Versioned<K extends 'inbox' ? InboxRecord : OutboxRecord>): HeldRecord<K> {
    return new HeldRecord(this.journal, kind, versioned.record, versioned.version)
  }

  /**
   * Whether a leased record's lease may be taken over now: it expired, or a dead incarnation of this
   * instance held it, or an unanswered claim of this run wrote it.
   */
  leaseIsOver(lease: InboxRecord['lease'], kind: 'inbox' | 'outbox', id: string): boolean {
    if (!lease) return true
    if (lease.expiresAt <= this.now()) return true
    if (this.keeper.holds(kind, id)) return false
    // A dead run's, or this run's unanswered claim's (no run holds it here: unrun-claims.ts).
    return this.isEarlierIncarnation(lease) || (kind === 'inbox' && this.unrun.wrote(id, lease))
  }

  /** Whether a lease was taken by an earlier run of this same instanceId (a process that died). */
  isEarlierIncarnation(lease: InboxRecord['lease']): boolean {
    return lease?.owner === this.instanceId && lease.incarnation !== this.incarnation
  }
}

/** An error as journaled. */
export function errorInfo(error: unknown, at: number): ErrorInfo {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code
    return { message: error.message, name: error.name, ...(typeof code === 'string' ? { code } : {}), at }
  }
  return { message: String(error), at }
}
