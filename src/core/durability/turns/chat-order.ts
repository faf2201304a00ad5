/**
 * A chat's order: every admitted message and every journaled send takes a sequence number, and
 * everything that orders a chat's records (the sweeper's replays and takeovers, the sends it
 * delivers) orders them by it. Channel ids do not sort in arrival order ('9' > '10', random
 * `wamid.*`) and whole milliseconds tie, so neither `createdAt` nor an id can stand for it.
 *
 * The sequence is a hybrid logical clock: the backend's clock in units of a thousandth of a
 * millisecond, and one more than the last number given out when that is larger. So it strictly
 * increases within a process, and a later process (a restart, a replica taking over by lease)
 * continues above it as the backend's clock moved on. A process also never gives out a number below
 * one it found in the journal (`observe`), should the clock have stepped back across a restart.
 */

/** Sequence numbers per millisecond of the clock: a process admits fewer than this many records a millisecond. */
export const SEQ_PER_MS = 1000

/** What orders a record in its chat. */
export interface Sequenced {
  /** Its sequence number (absent on records written before sequences: their `createdAt` stands for it). */
  seq?: number
  /** When it was written, in ms since the epoch. */
  createdAt: number
}

/** The place of `record` in its chat's order. */
export function seqOf(record: Sequenced): number {
  return record.seq ?? record.createdAt * SEQ_PER_MS
}

/** Orders records by their place in their chat (ascending). */
export function bySeq(a: Sequenced, b: Sequenced): number {
  return seqOf(a) - seqOf(b)
}

/** The sequence numbers this process gives out. */
export class ChatSequence {
  #last = 0

  /** The next number at `now` (the backend's clock, ms): at least the clock's, above every number given out or observed. */
  next(now: number): number {
    this.#last = Math.max(now * SEQ_PER_MS, this.#last + 1)
    return this.#last
  }

  /** A number found in the journal (or decided elsewhere): what this process gives out from now on comes after it. */
  observe(seq: number): number {
    if (seq > this.#last) this.#last = seq
    return seq
  }
}
