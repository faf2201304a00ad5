/**
 * The protocol's steps, as a store carries them out (issue 40, docs/architecture.md "The steps").
 * A message costs three: `admit` when the webhook arrives, `journal` when its handler sends, `settle`
 * when the provider answered. Each is one operation of the store, written in its own language where
 * that is what makes it fast (a synchronous path in memory; a Lua script, a SQL function), instead of
 * a generic compare-and-set the engine calls several times. A store answers through `done`, without a
 * promise of its own, so it can carry every message's steps in one shared call (a group commit).
 *
 * The records are the journal's own (records.ts), so every operator verb, the dashboard and export
 * read what the steps wrote. The rules each step applies (which message of a chat runs, the fencing
 * token, the claim) live in step-rules.ts, once, for every store written in TypeScript; a store in
 * another language follows the same rules, and the steps' conformance cases hold every store to them.
 */
import type { ErrorInfo, InboxRecord, OutboxRecord } from '../journal/records.js'

/** Who claims: this process's instance and run, the lease it takes, and the time on the store's clock. */
export interface StepClaim {
  /** The instance id. */
  readonly owner: string
  /** This run of the instance (a lease of an earlier run of the same owner is taken back at once). */
  readonly incarnation: string
  /** How long a lease taken now lasts. */
  readonly leaseMs: number
  /** Now, in ms since the epoch, on the store's clock. */
  readonly now: number
}

/** The store could not be reached or refused the step: nothing is known to be written (retryable). */
export interface StepUnavailable {
  readonly type: 'unavailable'
  readonly error: unknown
}

/** How an admission ended. */
export type AdmitOutcome =
  /** Journaled and claimed by this run: its handler runs now. */
  | { readonly type: 'run'; readonly record: InboxRecord }
  /** Journaled, pending behind the chat's unfinished message: that one's settle hands it over. */
  | { readonly type: 'queued'; readonly record: InboxRecord }
  /** A redelivery: the record admitted before. */
  | { readonly type: 'duplicate'; readonly record: InboxRecord }
  | StepUnavailable

/** How journaling a send ended. */
export type JournalOutcome =
  /** Its records are in (the first one `sending` under the caller's lease): call the provider. */
  | { readonly type: 'journaled' }
  /** Its key was journaled before (a replay's send): answer from that record. */
  | { readonly type: 'recorded'; readonly record: OutboxRecord }
  /** The message's lease passed on (its token is not the record's): this run must not send. */
  | { readonly type: 'fenced' }
  | StepUnavailable

/** A send the provider accepted. */
export interface SentMark {
  /** Its outbox key. */
  readonly key: string
  /** The provider's id of the message. */
  readonly messageId: string
}

/** How a message's run ended, as its settle journals it. */
export type RunEnd =
  /** Handled: done (with a note when the run did something an operator would not expect). */
  | { readonly state: 'done'; readonly note?: string }
  /** To run again at `retryAt`; it keeps its place at the head of its chat meanwhile. */
  | { readonly state: 'failed'; readonly error: ErrorInfo; readonly retryAt: number }
  /** Given up: in the dead-letter queue, and its chat goes on with the next message. */
  | { readonly state: 'dead'; readonly error: ErrorInfo }

/** How a settle ended. */
export type SettleOutcome =
  /**
   * The marks and the end are journaled. `next`: the chat's next message, claimed for this run's
   * owner (a message is handed over as the one before it settles, without a sweep).
   */
  | { readonly type: 'settled'; readonly next: InboxRecord | undefined }
  /** The message's lease passed on: its end was not written (its marks were: the channel took them). */
  | { readonly type: 'fenced' }
  | StepUnavailable

/** What a settle journals: the marks of a message's sends, and how its run ended. */
export interface Settle {
  /** The message whose run ended, and the fencing token of its run (absent: marks of sends made outside a message). */
  readonly inbound?: { readonly id: string; readonly token: number; readonly end: RunEnd }
  /** Sends the provider accepted: written `sent` whatever the fence says. */
  readonly marks: readonly SentMark[]
}

/** A message taken back by the sweeper: claimed for this run, or dead-lettered (its runs were spent). */
export interface TakenBack {
  readonly record: InboxRecord
  /** Dead-lettered instead of claimed: it had `maxAttempts` runs charged. */
  readonly dead: boolean
  /**
   * Left as it was, unclaimed: its next run is its last and the run before it never ended
   * (`isLastRunAlone` in step-rules.ts). It runs alone in the process: an alone pass takes it.
   */
  readonly waitsAlone?: boolean
}

/** How one `takeBack` pass takes. */
export interface TakeBackPass {
  /** Runs charged before a message is dead-lettered (`inbox.maxAttempts`). */
  readonly maxAttempts: number
  /** Messages taken (or left to an alone pass) at most. */
  readonly limit: number
  /**
   * An alone pass: the id of a message a pass left (`waitsAlone`). It claims that message, if it
   * still waits so, and nothing else. A pass without it leaves every such message where it is.
   */
  readonly alone?: string
}

/** The steps of one scope's journal. */
export interface JournalSteps {
  /**
   * Dedupes `record` by id, then journals it: `processing` and claimed under `claim` when its chat
   * has no unfinished message, `pending` behind the chat's last unfinished one otherwise.
   */
  admit(record: InboxRecord, claim: StepClaim, done: (outcome: AdmitOutcome) => void): void
  /**
   * Journals the records of a send (the parts of a split text, the first one `sending` under the
   * caller's lease), unless its first key is journaled already. A send of a message (`inbound`)
   * is fenced: refused once the message's token is not `token`.
   */
  journal(
    inbound: { readonly id: string; readonly token: number } | undefined,
    records: readonly OutboxRecord[],
    done: (outcome: JournalOutcome) => void,
  ): void
  /**
   * Writes the sent marks, then the message's end (its lease removed), fenced by its token; a
   * message done or dead leaves its chat, and the chat's next one is claimed under `claim`.
   */
  settle(settle: Settle, claim: StepClaim, done: (outcome: SettleOutcome) => void): void
  /**
   * Takes back, at most `pass.limit`, the chats' head messages that are due: leases over (or of an
   * earlier run of this owner), retries due, messages an operator replayed. A head whose runs were
   * spent (`maxAttempts`) is dead-lettered, and its chat goes on with its next message. A head whose
   * last run must run alone is left to an alone pass (`TakeBackPass.alone`).
   */
  takeBack(claim: StepClaim, pass: TakeBackPass, done: (taken: readonly TakenBack[] | StepUnavailable) => void): void
}
