/**
 * Admission: an inbound event is journaled in the inbox, as `processing` and leased to this
 * process, before any handler runs. A redelivery is recognised here: from memory when it was
 * admitted lately, from the journal otherwise. Fail-closed: an event the journal could not take is
 * refused (the channel delivers it again), unless `failOpen` lets it run unjournaled.
 */
import type { ChatTurns } from '../turns/chat-turns.js'
import type { DurabilityEngine } from '../engine.js'
import type { HeldRecord } from '../leases/held-record.js'
import { admitInbound } from './inbox.js'
import { inboxRecordId } from '../outbox/keys.js'
import { RecentIds } from './recent-ids.js'
import type { Transport } from '../port.js'
import { NO_TRACING, type MessageTracing } from '../tracing.js'
import { EventNotJournalableError, JournalUnavailableError } from '../../errors/errors.js'
import type { InboundEvent } from '../../provider/provider.js'
import type { Json } from '../journal/kv.js'

type Admitted = Awaited<ReturnType<typeof admitInbound>>

export interface AdmissionDeps {
  engine: DurabilityEngine
  transport: Transport
  tracing: MessageTracing
  /** Chat turns across replicas (durability.coordination), if on. */
  turns: ChatTurns | undefined
  /** Runs an event the journal could not take under the record id it would have had, when failOpen allows it. */
  runUnjournaled(event: InboundEvent, recordId: string): void
  /**
   * While the start's sweep has not got through: what resolves once one has, or rejects (the event
   * is refused like one the journal could not take). Undefined once it has (recovery.ts).
   */
  recovering(): Promise<void> | undefined
}

/** What an admission that needs no work resolves to. */
const DONE: Promise<void> = Promise.resolve()

export class Admission {
  /** Record ids admitted lately by this process: a redelivery is recognised without a round trip. */
  readonly #recent = new RecentIds()
  /** Admissions in flight, by record id: a redelivery meanwhile is answered as the first one is. */
  readonly #admitting = new Map<string, Promise<void>>()

  constructor(private readonly deps: AdmissionDeps) {}

  /**
   * Journals `event`, then calls `run` with the held record, inside the admission (a tracer sees
   * the handler's run as part of it). Resolves once the event is journaled (or a duplicate).
   */
  admit(event: InboundEvent, run: (held: HeldRecord<'inbox'>) => void): Promise<void> {
    const { engine, transport, tracing } = this.deps
    const id = inboxRecordId(transport.name, event.chatId, event.id)
    const admitting = this.#admitting.get(id)
    if (admitting) {
      // A redelivery while the first delivery is still being journaled: acknowledged only once that one
      // is, and refused if it fails (fail-closed), so the channel delivers it again instead of losing it.
      return admitting.then(() => engine.metrics.increment('inboundDuplicates'))
    }
    if (this.#recent.has(id)) {
      engine.metrics.increment('inboundDuplicates')
      return DONE
    }
    // Without a tracer no traced message and no closure are made: this runs once per message.
    const admission =
      tracing === NO_TRACING
        ? this.#journal(id, event, run)
        : tracing.admit({ inboundId: id, chatId: event.chatId, provider: transport.name }, () => this.#journal(id, event, run))
    this.#admitting.set(id, admission)
    return admission
  }

  #journal(id: string, event: InboundEvent, run: (held: HeldRecord<'inbox'>) => void): Promise<void> {
    const { engine, transport } = this.deps
    this.#recent.remember(id)
    let admitting: Promise<Admitted>
    try {
      const journaled = transport.journalEvent(event, engine.config.inbox.mediaRefs)
      const recovering = this.deps.recovering()
      admitting = recovering
        ? recovering.then(() => this.#admitJournaled(event, journaled, id))
        : this.#admitJournaled(event, journaled, id)
    } catch (cause) {
      admitting = Promise.reject(cause)
    }
    // The admission is forgotten here, once the journal answered, not by a then() on the traced
    // admission: a promise fewer per message. A redelivery from then on is told apart by #recent.
    return admitting.then(
      (admitted) => {
        this.#admitting.delete(id)
        if ('existing' in admitted) engine.metrics.increment('inboundDuplicates')
        else run(admitted.held)
      },
      (cause: unknown) => {
        this.#admitting.delete(id)
        this.#refused(id, event, cause)
      },
    )
  }

  #admitJournaled(event: InboundEvent, journaled: Json, id: string): Promise<Admitted> {
    const { engine, transport, turns } = this.deps
    return turns ? this.#admitInTurn(turns, event, journaled, id) : admitInbound(engine, event, journaled, transport.name)
  }

  /**
   * With coordination the message takes its place in its chat's turn queue first: that is its
   * arrival. Journaled, it makes sure it still holds that place before it is acknowledged (a stalled
   * admission may have lost it). A journal error there is reported, not refused: the message is
   * journaled, and its turn checks its place again before it runs.
   */
  #admitInTurn(turns: ChatTurns, event: InboundEvent, journaled: Json, id: string): ReturnType<typeof admitInbound> {
    const { engine, transport } = this.deps
    return turns
      .join(event.chatId, id)
      .then((arrivedAt) => admitInbound(engine, event, journaled, transport.name, arrivedAt))
      .then((admitted): Admitted | Promise<Admitted> =>
        'held' in admitted
          ? turns.keepPlace(admitted.held).then(
              () => admitted,
              (error: unknown) => (engine.events.error(error), admitted),
            )
          : admitted,
      )
  }

  /** The journal could not take the event: refused (fail-closed), or run unjournaled with failOpen. */
  #refused(id: string, event: InboundEvent, cause: unknown): void {
    const error = refusal(this.deps.engine, id, cause)
    // Fail-closed: forgotten, so the channel's redelivery is processed. With failOpen it runs now,
    // and a redelivery in this process is a duplicate (the journal may hold none of its effects).
    if (!this.deps.engine.config.failOpen) {
      this.#recent.forget(id)
      throw error
    }
    this.deps.runUnjournaled(event, id)
  }
}

/**
 * The error an event the journal could not take is refused with, reported: an event the journal can
 * never hold fails for good with its own code; anything else may pass on a redelivery.
 */
export function refusal(engine: DurabilityEngine, id: string, cause: unknown): Error {
  const error =
    cause instanceof EventNotJournalableError
      ? cause
      : new JournalUnavailableError(
          `the inbox could not journal event "${id}": ${cause instanceof Error ? cause.message : String(cause)}`,
          cause,
        )
  engine.events.error(error)
  return error
}
