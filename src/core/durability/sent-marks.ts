/**
 * A reply's `sent` mark, held back a moment so it can ride in its message's completion write.
 *
 * Once the provider accepted a handler's send, its outbox record must say `sent` with the provider's
 * message id: written alone, that is a round trip, and the message's `inbox.complete` right after it
 * is another. A handler nearly always replies and returns, so the mark waits for the completion and
 * both go in one journal write (`['outbox.markSent', 'inbox.complete']`): three round trips a message
 * instead of four.
 *
 * A mark waits at most `LIMITS.sentMarkLingerMs` (the handler may go on working), and is then written
 * alone. Meanwhile its record stays `sending` under this process's lease, which the lease keeper keeps
 * alive: a crash in that window is the one the contract calls ambiguous (the provider accepted the
 * send, the outbox has not recorded it yet), as between any provider call and its mark.
 */
import { JournalUnavailableError } from '../errors.js'
import type { DurabilityEngine } from './engine.js'
import type { HeldRecord, HeldUpdate } from './held-record.js'
import { LIMITS } from './limits.js'
import type { OutboxRecord } from './records.js'
import { settlingRetry, settlingWrite } from './settling-write.js'

/** The record of a send the provider accepted as `messageId`. */
export function sentRecord(engine: DurabilityEngine, messageId: string): (record: OutboxRecord) => OutboxRecord {
  return (record) => ({
    ...record,
    state: 'sent',
    attempts: record.attempts + 1,
    providerMessageId: messageId,
    lease: null,
    nextAttemptAt: null,
    lastError: null,
    updatedAt: engine.now(),
  })
}

/** A mark held back: the record, its change, and how to tell the sender it landed. */
export interface ParkedMark {
  held: HeldRecord<'outbox'>
  update: HeldUpdate
  landed(ok: boolean): void
}

/** The sent marks of one message's sends that wait for its completion. */
export class SentMarks {
  #parked: ParkedMark[] = []
  #timer: NodeJS.Timeout | undefined
  /** Marks being written alone, until they landed or failed. */
  readonly #writing = new Set<Promise<void>>()

  constructor(
    private readonly engine: DurabilityEngine,
    /** A mark that could not be written: the message is then not done (it replays, as for any effect not recorded). */
    private readonly onUnrecorded: (error: JournalUnavailableError) => void,
  ) {}

  /**
   * Holds back the mark of `held`, accepted by the provider as `messageId`; the lease keeper keeps
   * holding the record until the mark landed. Resolves once it landed (false: the lease was lost).
   */
  park(held: HeldRecord<'outbox'>, messageId: string): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const update = { held, change: sentRecord(this.engine, messageId) } as HeldUpdate
      this.#parked.push({ held, update, landed: resolve })
    })
  }

  /** Starts the wait of the marks parked so far (once the send is over for its caller: after its after('send') work). */
  linger(): void {
    if (this.#parked.length > 0) this.#timer ??= setTimeout(() => this.#writeAlone(), LIMITS.sentMarkLingerMs)
  }

  /** Whether marks wait or are being written. */
  get busy(): boolean {
    return this.#parked.length > 0 || this.#writing.size > 0
  }

  /** Takes the waiting marks into a write of the caller's (the completion), which must `settle` or `restore` them. */
  take(): ParkedMark[] {
    clearTimeout(this.#timer)
    this.#timer = undefined
    const parked = this.#parked
    this.#parked = []
    return parked
  }

  /** After the write that took `parked` landed: one result each. */
  settle(parked: readonly ParkedMark[], results: readonly boolean[]): void {
    parked.forEach((mark, n) => this.#landed(mark, results[n]!))
  }

  /** After the write that took `parked` failed: they wait again (and are written alone if nothing takes them). */
  restore(parked: readonly ParkedMark[]): void {
    this.#parked.unshift(...parked)
    this.linger()
  }

  /** Writes what still waits, alone, and waits for every mark being written: nothing of the message is left behind. */
  async drain(): Promise<void> {
    this.#writeAlone()
    while (this.#writing.size > 0) await Promise.all(this.#writing)
  }

  #writeAlone(): void {
    for (const mark of this.take()) {
      const written = settlingWrite(settlingRetry(this.engine.config, 'outbox'), () =>
        mark.held.update('outbox.markSent', mark.update.change as (record: OutboxRecord) => OutboxRecord),
      ).then(
        (ok) => this.#landed(mark, ok),
        (error: unknown) => {
          this.engine.events.error(error)
          if (error instanceof JournalUnavailableError) this.onUnrecorded(error)
          this.engine.keeper.remove(mark.held)
          mark.landed(false)
        },
      )
      this.#writing.add(written)
      void written.then(() => this.#writing.delete(written))
    }
  }

  #landed(mark: ParkedMark, ok: boolean): void {
    this.engine.keeper.remove(mark.held)
    if (!ok) this.engine.metrics.increment('staleLeases')
    mark.landed(ok)
  }
}
