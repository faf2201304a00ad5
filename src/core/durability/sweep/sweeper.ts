/**
 * The background sweeper: every `pollMs` it delivers due sends (retries, enqueued sends, later
 * parts), settles sends abandoned mid-call, and replays inbound records whose processing was left
 * unfinished or is due for a retry. Retention runs beside it (retention.ts).
 */
import type { Versioned } from '../journal/backend.js'
import { bySeq } from '../turns/chat-order.js'
import type { DurabilityEngine } from '../engine.js'
import { takeInbound } from '../admission/inbox.js'
import { canTakeOverAny, takeOver } from './lane-takeover.js'
import type { HeldRecord } from '../leases/held-record.js'
import { LIMITS } from '../limits.js'
import type { Outbox } from '../outbox/outbox.js'
import type { Delivery } from '../outbox/outbox-attempt.js'
import { sweepOutboxRecord } from './outbox-sweep.js'
import { recordKey, type InboxRecord, type OutboxRecord } from '../journal/records.js'

export class Sweeper {
  /**
   * Whether to look for records an earlier run of this instanceId left leased. From the first sweep
   * until a sweep gets through finding none: a sweep may fail half-way (the backend briefly
   * unreachable), and a write of the dead run may land late and make a reclaim lose its race.
   */
  #reclaiming = true
  lastSweepAt: number | null = null
  /** Records an earlier run of this instanceId left leased, taken back by the sweeps (by key: a lost race is found again). */
  readonly #takenBack = { inbox: new Set<string>(), outbox: new Set<string>() }

  constructor(
    private readonly engine: DurabilityEngine,
    private readonly outbox: Outbox,
    private readonly delivery: Delivery,
    /** Whether it takes back inbound records too: the steps engine takes them back in their chats' order itself (steps-sweep.ts). */
    private readonly inbox = true,
  ) {}

  /**
   * One pass; `run` runs each inbound record it claims (the pipeline's run; the sweep does not wait
   * for it). It claims no more inbound records once `hasRoom` says the process holds enough: the
   * rest stay due in the journal, for a later pass or another replica.
   */
  async sweep(run: (held: HeldRecord<'inbox'>) => void, hasRoom: () => boolean = () => true): Promise<void> {
    const engine = this.engine
    await engine.clock.sync()
    const now = engine.now()
    const [outboxDue, inboxDue] = await this.#due(now)
    // A restarted instance takes back at once what its dead earlier run left leased.
    const reclaimed = this.#reclaiming ? await this.#ownAbandoned(outboxDue, inboxDue) : { outbox: [], inbox: [] }
    const foundAbandoned = reclaimed.outbox.length + reclaimed.inbox.length > 0
    for (const found of reclaimed.outbox) this.#takenBack.outbox.add(found.record.key)
    for (const found of reclaimed.inbox) this.#takenBack.inbox.add(found.record.id)
    const unrun = this.inbox ? await this.#unrunClaims([...inboxDue, ...reclaimed.inbox]) : []
    await this.#sweepOutbox([...outboxDue, ...reclaimed.outbox])
    // Replays of a chat run in its order, head first (lane-takeover.ts): an answer never overtakes its question.
    await takeOver(
      engine,
      [...inboxDue, ...reclaimed.inbox, ...unrun],
      async ({ found, charge }) => {
        const taken = await takeInbound(engine, found, charge)
        if (taken === 'dead') return 'dead'
        if (!taken) return 'lost'
        run(taken)
        return 'held'
      },
      hasRoom,
    )
    if (!foundAbandoned) this.#reclaiming = false
    this.lastSweepAt = engine.now()
  }

  /** How many records an earlier run of this instanceId left leased that the sweeps took back. */
  get takenBack(): { inbox: number; outbox: number } {
    return { inbox: this.#takenBack.inbox.size, outbox: this.#takenBack.outbox.size }
  }

  /**
   * Whether a sweep now would find work: records of an earlier run of this instanceId still to take
   * back, or a due record that can be worked on now (the sweep's own rule). `bot.idle()` asks this.
   */
  async hasWorkNow(): Promise<boolean> {
    if (this.#reclaiming) return true
    const engine = this.engine
    const now = engine.now()
    const [outboxDue, inboxDue] = await this.#due(now)
    return outboxDue.some(({ record }) => canWorkOnSend(engine, this.outbox, record)) || (await canTakeOverAny(engine, inboxDue))
  }

  #due(now: number): Promise<[Versioned<OutboxRecord>[], Versioned<InboxRecord>[]]> {
    const journal = this.engine.journal
    return Promise.all([
      journal.due('outbox', now, LIMITS.sweepBatchMax),
      this.inbox ? journal.due('inbox', now, LIMITS.sweepBatchMax) : [],
    ])
  }

  /** Sends of different chats go out in parallel; within a chat, in the chat's order (chat-order.ts). */
  async #sweepOutbox(due: Versioned<OutboxRecord>[]): Promise<void> {
    const byChat = new Map<string, Versioned<OutboxRecord>[]>()
    for (const found of [...due].sort((a, b) => bySeq(a.record, b.record))) {
      if (!canWorkOnSend(this.engine, this.outbox, found.record)) continue
      const list = byChat.get(found.record.chatId) ?? []
      list.push(found)
      byChat.set(found.record.chatId, list)
    }
    await Promise.all(
      [...byChat.values()].map(async (records) => {
        for (const found of records) await sweepOutboxRecord(this.engine, this.delivery, found)
      }),
    )
  }

  /**
   * Records this run claimed without an answer (unrun-claims.ts) and still under that claim: no run
   * holds them, so they are taken back now, head of their chats as before, not once the lease runs out.
   */
  async #unrunClaims(found: readonly Versioned<InboxRecord>[]): Promise<Versioned<InboxRecord>[]> {
    const engine = this.engine
    const seen = new Set(found.map((f) => f.record.id))
    const ids = engine.unrun.ids().filter((id) => !seen.has(id) && !engine.keeper.holds('inbox', id))
    if (ids.length === 0) return []
    const read = await engine.journal.read('inbox', ids)
    return read.filter((f, n): f is Versioned<InboxRecord> => {
      const lease = f?.record.state === 'processing' ? f.record.lease : null
      if (lease && engine.unrun.wrote(ids[n]!, lease)) return true
      engine.unrun.forget(ids[n]!)
      return false
    })
  }

  /** Records leased to this instanceId by an earlier incarnation (not due yet: their leases have not expired). */
  async #ownAbandoned(
    outboxDue: Versioned<OutboxRecord>[],
    inboxDue: Versioned<InboxRecord>[],
  ): Promise<{ outbox: Versioned<OutboxRecord>[]; inbox: Versioned<InboxRecord>[] }> {
    const engine = this.engine
    const seen = new Set([...outboxDue.map((f) => `o:${f.record.key}`), ...inboxDue.map((f) => `i:${f.record.id}`)])
    const mine = (lease: InboxRecord['lease']) => engine.isEarlierIncarnation(lease)
    const outbox = (await listAll(engine, 'outbox', 'sending')).filter(
      (f) => mine(f.record.lease) && !seen.has(`o:${f.record.key}`) && !engine.keeper.holds('outbox', f.record.key),
    )
    if (!this.inbox) return { outbox, inbox: [] }
    const inbox = (await listAll(engine, 'inbox', 'processing')).filter(
      (f) => mine(f.record.lease) && !seen.has(`i:${f.record.id}`) && !engine.keeper.holds('inbox', f.record.id),
    )
    return { outbox, inbox }
  }
}

/**
 * The one rule for "can this due send be worked on now", used by the sweep and by hasWorkNow: it
 * is not being worked on by this process, and not leased to a live run elsewhere.
 */
function canWorkOnSend(engine: DurabilityEngine, outbox: Outbox, record: OutboxRecord): boolean {
  if (outbox.isInFlight(record.key) || engine.keeper.holds('outbox', record.key)) return false
  return record.state !== 'sending' || engine.leaseIsOver(record.lease, 'outbox', record.key)
}

/** Every record of `kind` in `state`, page after page, at most LIMITS.reclaimScanMax. */
export async function listAll<K extends 'inbox' | 'outbox'>(
  engine: DurabilityEngine,
  kind: K,
  state: string,
): Promise<Versioned<K extends 'inbox' ? InboxRecord : OutboxRecord>[]> {
  type R = K extends 'inbox' ? InboxRecord : OutboxRecord
  const out: Versioned<R>[] = []
  let after: { stateTime: number; key: string } | undefined
  while (out.length < LIMITS.reclaimScanMax) {
    const page = (await engine.journal.list(kind, { state, after, limit: LIMITS.sweepBatchMax })) as Versioned<R>[]
    out.push(...page)
    if (page.length < LIMITS.sweepBatchMax) break
    const last = page.at(-1)!.record as InboxRecord | OutboxRecord
    after = { stateTime: last.updatedAt, key: recordKey<'inbox' | 'outbox'>(kind, last) }
  }
  return out
}
