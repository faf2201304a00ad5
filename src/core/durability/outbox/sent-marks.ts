/**
 * A reply's `sent` mark, held back a moment so it can ride in its message's completion write.
 *
 * Once the provider accepted a handler's send, its outbox record must say `sent` with the provider's
 * message id: written alone, that is a round trip, and the message's `inbox.complete` right after it
 * is another. A handler nearly always replies and returns, so the mark waits for the completion and
 * both go in one journal write (`['outbox.markSent', 'inbox.complete']`): three round trips a message
 * instead of four.
 *
 * A mark waits no longer than the turn of the event loop in which its send returned to the handler:
 * a handler that goes on working (awaits I/O, a timer) or makes another send gets the mark written
 * alone first, as before. Meanwhile its record stays `sending` under this process's lease, which the
 * lease keeper keeps alive: a crash in that window is the one the contract calls ambiguous (the
 * provider accepted the send, the outbox has not recorded it yet), as between any provider call and
 * its mark.
 */
import { JournalUnavailableError } from '../../errors/errors.js'
import type { DurabilityEngine } from '../engine.js'
import type { HeldRecord, HeldUpdate } from '../leases/held-record.js'
import type { OutboxRecord } from '../journal/records.js'
import { settlingRetry, settlingWrite } from '../run/settling-write.js'
import { sentOutboxRecord } from '../steps/step-rules.js'

/** The record of a send the provider accepted as `messageId`. */
export function sentRecord(engine: DurabilityEngine, messageId: string): (record: OutboxRecord) => OutboxRecord {
  return (record) => sentOutboxRecord(record, messageId, engine.now())
}

/** A mark held back: the outbox record and its change to `sent`. */
export type ParkedMark = HeldUpdate

/**
 * The marks still waiting when the event loop's turn ends get written alone then: one immediate for
 * every message's marks of the turn, not a timer per message.
 */
const waitingThisTurn = new Set<SentMarks>()
let endOfTurn: NodeJS.Immediate | undefined

/** How many messages' marks the end of this turn holds (what a burst may pile up there). */
export function waitingAtEndOfTurn(): number {
  return waitingThisTurn.size
}

function writeAtEndOfTurn(marks: SentMarks): void {
  waitingThisTurn.add(marks)
  endOfTurn ??= setImmediate(() => {
    endOfTurn = undefined
    const waiting = [...waitingThisTurn]
    waitingThisTurn.clear()
    for (const one of waiting) one.writeAlone()
  })
}

/** The sent marks of one message's sends that wait for its completion. */
export class SentMarks {
  #parked: ParkedMark[] | undefined
  /** Marks being written alone, until they landed or failed. */
  #writing: Set<Promise<void>> | undefined

  constructor(
    private readonly engine: DurabilityEngine,
    /** Where a mark that could not be written is kept: the message is then not done (it replays, as for any effect not recorded). */
    private readonly unrecorded: { journalFailure?: JournalUnavailableError },
    /**
     * A fail-open message's marks are tried once: it has no inbox record whose lease a retry would
     * protect, and its next send waits for them (the journal the inbox found down, for half a lease).
     */
    private readonly tryOnce = false,
  ) {}

  /**
   * Holds back the mark of `held`, accepted by the provider as `messageId`; the lease keeper keeps
   * holding the record until the mark landed.
   */
  park(held: HeldRecord<'outbox'>, messageId: string): void {
    ;(this.#parked ??= []).push({ held, change: sentRecord(this.engine, messageId) } as HeldUpdate)
  }

  /**
   * Once the send is over for its caller (after its after('send') work): what still waits when this
   * turn of the event loop ends is written alone. A handler that returns right after its reply
   * completes within the turn, and takes the mark along.
   */
  linger(): void {
    if (this.#parked?.length) writeAtEndOfTurn(this)
  }

  /** Whether marks wait or are being written. */
  get busy(): boolean {
    return (this.#parked?.length ?? 0) > 0 || (this.#writing?.size ?? 0) > 0
  }

  /** Takes the waiting marks into a write of the caller's (the completion), which must `settle` or `restore` them. */
  take(): ParkedMark[] {
    const parked = this.#parked ?? []
    this.#parked = undefined
    // Nothing left to write alone: the turn's end need not keep this message (on the memory backend
    // a burst runs in one turn, and the set held every message of it until the turn ended).
    waitingThisTurn.delete(this)
    return parked
  }

  /** After the write that took `parked` landed: one result each. */
  settle(parked: readonly ParkedMark[], results: readonly boolean[]): void {
    parked.forEach((mark, n) => this.#landed(mark, results[n]!))
  }

  /** After the write that took `parked` failed: they wait again (and are written alone if nothing takes them). */
  restore(parked: readonly ParkedMark[]): void {
    this.#parked = [...parked, ...(this.#parked ?? [])]
    this.linger()
  }

  /** Writes what still waits, alone, and waits for every mark being written: nothing of the message is left behind. */
  async drain(): Promise<void> {
    this.writeAlone()
    while (this.#writing?.size) await Promise.all(this.#writing)
  }

  /** Writes each waiting mark on its own (the end of the turn came first, or the message goes on). */
  writeAlone(): void {
    for (const mark of this.take()) {
      const retry = settlingRetry(this.engine.config, 'outbox')
      const written = settlingWrite(this.tryOnce ? { ...retry, budgetMs: 0 } : retry, () =>
        mark.held.update('outbox.markSent', mark.change),
      ).then(
        (ok) => this.#landed(mark, ok),
        (error: unknown) => {
          this.engine.events.error(error)
          if (error instanceof JournalUnavailableError) this.unrecorded.journalFailure ??= error
          this.engine.keeper.remove(mark.held)
        },
      )
      const writing = (this.#writing ??= new Set())
      writing.add(written)
      void written.then(() => writing.delete(written))
    }
  }

  #landed(mark: ParkedMark, ok: boolean): void {
    this.engine.keeper.remove(mark.held)
    if (!ok) this.engine.metrics.increment('staleLeases')
  }
}
