/**
 * Admission: an inbound event is journaled in the inbox, as `processing` and leased to this
 * process, before any handler runs. A redelivery is recognised here: from memory when it was
 * admitted lately, from the journal otherwise. Fail-closed: an event the journal could not take is
 * refused (the channel delivers it again), unless `failOpen` lets it run unjournaled.
 */
import type { ChatTurns } from '../durability/chat-turns.js'
import type { DurabilityEngine } from '../durability/engine.js'
import type { HeldRecord } from '../durability/held-record.js'
import { admitInbound } from '../durability/inbox.js'
import { inboxRecordId } from '../durability/keys.js'
import { LIMITS } from '../durability/limits.js'
import type { MessageTracing } from '../durability/tracing.js'
import { JournalUnavailableError } from '../errors.js'
import { journalEvent } from '../media.js'
import type { InboundEvent } from '../provider.js'
import type { BotParts } from './pipeline.js'

export interface AdmissionDeps {
  parts: BotParts
  engine: DurabilityEngine
  tracing: MessageTracing
  /** Chat turns across replicas (durability.coordination), if on. */
  turns: ChatTurns | undefined
  /** Runs an event the journal could not take, when failOpen allows it. */
  runUnjournaled(event: InboundEvent): void
}

export class Admission {
  /** Record ids admitted lately by this process: a redelivery is recognised without a round trip. */
  readonly #recent = new Set<string>()
  /** Admissions in flight, by record id: a redelivery meanwhile is answered as the first one is. */
  readonly #admitting = new Map<string, Promise<void>>()

  constructor(private readonly deps: AdmissionDeps) {}

  /**
   * Journals `event`, then calls `run` with the held record, inside the admission (a tracer sees
   * the handler's run as part of it). Resolves once the event is journaled (or a duplicate).
   */
  async admit(event: InboundEvent, run: (held: HeldRecord<'inbox'>) => void): Promise<void> {
    const { engine, parts, tracing } = this.deps
    const id = inboxRecordId(parts.provider.name, event.chatId, event.id)
    const admitting = this.#admitting.get(id)
    if (admitting) {
      // A redelivery while the first delivery is still being journaled: acknowledged only once that one
      // is, and refused if it fails (fail-closed), so the channel delivers it again instead of losing it.
      await admitting
      engine.metrics.increment('inboundDuplicates')
      return
    }
    if (this.#recent.has(id)) {
      engine.metrics.increment('inboundDuplicates')
      return
    }
    const admission = tracing.admit({ inboundId: id, chatId: event.chatId, provider: parts.provider.name }, () => this.#journal(id, event, run))
    this.#admitting.set(id, admission)
    try {
      await admission
    } finally {
      this.#admitting.delete(id)
    }
  }

  async #journal(id: string, event: InboundEvent, run: (held: HeldRecord<'inbox'>) => void): Promise<void> {
    const { engine, parts, turns } = this.deps
    this.#remember(id)
    let admitted: Awaited<ReturnType<typeof admitInbound>>
    try {
      const journaled = journalEvent(event, parts.provider, { mediaRefs: engine.config.inbox.mediaRefs, warn: parts.warn })
      // With coordination the message takes its place in its chat's turn queue first: that is its arrival.
      const arrivedAt = turns ? await turns.join(event.chatId, id) : undefined
      admitted = await admitInbound(engine, event, journaled, parts.provider.name, arrivedAt)
    } catch (cause) {
      // Forget it, so the channel's redelivery is processed.
      this.#recent.delete(id)
      const error = new JournalUnavailableError(`the inbox could not journal event "${id}": ${cause instanceof Error ? cause.message : String(cause)}`, cause)
      parts.error(error)
      if (!engine.config.failOpen) throw error
      this.deps.runUnjournaled(event)
      return
    }
    if ('existing' in admitted) {
      engine.metrics.increment('inboundDuplicates')
      return
    }
    run(admitted.held)
  }

  #remember(id: string): void {
    this.#recent.add(id)
    if (this.#recent.size > LIMITS.dedupeCacheMax) this.#recent.delete(this.#recent.values().next().value!)
  }
}
