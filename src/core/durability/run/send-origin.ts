/**
 * The message a handler is handling. Every send made through its context gets a key derived from it
 * (`<inbound record id>:<n>`), and the runtime waits for those sends before it marks the message done.
 */
import type { DurabilityEngine } from '../engine.js'
import { SentMarks } from '../outbox/sent-marks.js'
import type { JournalUnavailableError } from '../../errors/errors.js'

export class SendOrigin {
  /** Sends made so far: the ordinal of the next one is `sends + 1`. */
  sends = 0
  /** Sends started, settled before the message is marked done; each is pushed caught (it never rejects). */
  readonly pending: Promise<unknown>[] = []
  /**
   * The first send that could not be journaled. The message is then not done: it is released and
   * replayed, and its later sends are refused meanwhile, so they keep their order on the replay.
   * A sent mark that could not be written lands here too.
   */
  journalFailure?: JournalUnavailableError
  /** The `sent` marks of its sends, waiting to ride in its completion write. */
  readonly marks: SentMarks

  constructor(
    engine: DurabilityEngine,
    readonly inboundId: string,
    /** Whether earlier runs may already have journaled sends under derived keys. */
    readonly replay: boolean,
    /**
     * A message run with failOpen (no inbox record, see fail-open-run.ts): a send the outbox cannot
     * journal goes out unjournaled, and no replay is waited for.
     */
    readonly failOpen = false,
  ) {
    this.marks = new SentMarks(engine, this, failOpen)
  }
}
