/**
 * Admission on the steps engine: an inbound event is one `admit` step, which dedupes it, journals
 * it and either claims it (it runs now) or queues it behind its chat's unfinished message. A
 * redelivery is recognised from memory when it was admitted lately, and one arriving while the
 * first is still being journaled is answered as that one is. Fail-closed: an event the store could
 * not take is refused (the channel delivers it again), unless `failOpen` lets it run unjournaled.
 * Traced, the admission is a span (the tracer parents the message's handler span on it by its id).
 */
import { refusal } from '../admission/admission.js'
import { admittedRecord } from '../admission/inbox.js'
import { RecentIds } from '../admission/recent-ids.js'
import type { DurabilityEngine } from '../engine.js'
import type { InboxRecord } from '../journal/records.js'
import { inboxRecordId } from '../outbox/keys.js'
import type { Transport } from '../port.js'
import { NO_TRACING, type MessageTracing } from '../tracing.js'
import type { InboundEvent } from '../../provider/provider.js'
import type { AdmitOutcome, JournalSteps, StepClaim } from './journal-steps.js'
import { isUnrunClaim } from './step-rules.js'

export interface StepsAdmissionDeps {
  engine: DurabilityEngine
  steps: JournalSteps
  transport: Transport
  tracing: MessageTracing
  claim(): StepClaim
  /**
   * While the start's sweep has not got through: what resolves once one has, or rejects (the event
   * is refused like one the store could not take). Undefined once it has (recovery.ts).
   */
  recovering(): Promise<void> | undefined
  /** Whether this process runs the message `id` now. */
  runs(id: string): boolean
  /** Runs a message its admission claimed, with its live event. */
  run(record: InboxRecord, event: InboundEvent): void
  /** A message queued behind its chat's unfinished one: its live event, kept for its run. */
  queued(id: string, event: InboundEvent): void
  /** Runs an event the store could not take under the record id it would have had (failOpen). */
  runUnjournaled(event: InboundEvent, id: string): void
}

export class StepsAdmission {
  readonly #recent = new RecentIds()
  /** Admissions the store has not answered yet, by id: a redelivery meanwhile is answered as the first one is. */
  readonly #admitting = new Map<string, Promise<void>>()

  constructor(private readonly deps: StepsAdmissionDeps) {}

  /** Resolves once the event is journaled (or known); rejects when it is refused. */
  admit(event: InboundEvent): Promise<void> {
    const { engine, transport } = this.deps
    const metrics = engine.metrics
    const id = inboxRecordId(transport.name, event.chatId, event.id)
    const admitting = this.#admitting.get(id)
    if (admitting) return admitting.then(() => metrics.increment('inboundDuplicates'))
    if (this.#recent.has(id)) {
      metrics.increment('inboundDuplicates')
      return Promise.resolve()
    }
    let answered = false
    const tracing = this.deps.tracing
    // `refusedBy`: the start's sweep has not got through (recovery.ts); refused as an event the store could not take.
    const admitNow = (refusedBy?: unknown): Promise<void> => {
      const journaled = () =>
        new Promise<void>((resolve, reject) => {
          const done = (outcome: AdmitOutcome): void => {
            answered = true
            this.#answered(id, event, outcome, resolve, reject)
          }
          if (refusedBy === undefined) this.#journal(id, event, done)
          else done({ type: 'unavailable', error: refusedBy })
        })
      return tracing === NO_TRACING
        ? journaled()
        : tracing.admit({ inboundId: id, chatId: event.chatId, provider: transport.name }, journaled)
    }
    // What a dead earlier run left goes first in its chats: a new message waits for the sweep that
    // takes it back, and is refused while every sweep fails (recovery.ts).
    const recovering = this.deps.recovering()
    const admission = recovering ? recovering.then(() => admitNow(), admitNow) : admitNow()
    // A store that answered at once (memory) left nothing in flight to join.
    if (!answered) this.#admitting.set(id, admission)
    return admission
  }

  /** Journals the event: one `admit` step (an event whose record cannot be made is answered `unavailable`). */
  #journal(id: string, event: InboundEvent, done: (outcome: AdmitOutcome) => void): void {
    const { engine, transport } = this.deps
    let record: InboxRecord
    try {
      record = admittedRecord(engine, id, event, transport.journalEvent(event, engine.config.inbox.mediaRefs), transport.name)
    } catch (error) {
      return done({ type: 'unavailable', error })
    }
    this.deps.steps.admit(record, this.deps.claim(), done)
  }

  /** The store's answer: the message runs, waits queued, is a duplicate, or is refused. */
  #answered(id: string, event: InboundEvent, outcome: AdmitOutcome, resolve: () => void, reject: (error: unknown) => void): void {
    this.#admitting.delete(id)
    if (outcome.type === 'unavailable') return this.#refused(id, event, outcome.error, resolve, reject)
    this.#recent.remember(id)
    this.deps.engine.metrics.increment(outcome.type === 'duplicate' ? 'inboundDuplicates' : 'inboundJournaled')
    resolve()
    if (outcome.type === 'run') this.deps.run(outcome.record, event)
    else if (outcome.type === 'queued') this.deps.queued(id, event)
    // A redelivery of a message whose admission landed unanswered (refused here): its claim is this run's, and it runs now.
    else if (isUnrunClaim(outcome.record, this.deps.claim(), (id) => this.deps.runs(id))) this.deps.run(outcome.record, event)
  }

  /** The store could not take the event: refused (fail-closed), or run unjournaled with failOpen. */
  #refused(id: string, event: InboundEvent, cause: unknown, resolve: () => void, reject: (error: unknown) => void): void {
    const error = refusal(this.deps.engine, id, cause)
    if (!this.deps.engine.config.failOpen) return reject(error)
    // A redelivery in this process is a duplicate: the journal may hold none of its effects.
    this.#recent.remember(id)
    resolve()
    this.deps.runUnjournaled(event, id)
  }
}
