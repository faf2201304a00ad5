/**
 * The interface the engine talks to: a backend that holds journals, one `Journal` per scope.
 * `KvDurability` implements it over any `DurableKv`; `eventsDurability` over an events journal.
 */
import type { WriteLabel } from './crash-points.js'
import type { RecordKind, RecordOf } from './records.js'

/** A record together with the version its backend stored it under. */
export interface Versioned<R> {
  /** The record. */
  record: R
  /** Its version: 1 when inserted, one more at each write. */
  version: number
}

/** Insert (expectVersion 0) or replace (expectVersion n) a record. */
export interface JournalPut<K extends RecordKind = RecordKind> {
  /** The journal it goes to. */
  kind: K
  /** The whole record; its id (or key) names it. */
  record: RecordOf[K]
  /** The version it must still have: 0 for an insert. */
  expectVersion: number
}

/** Delete a record if its version is still expectVersion. */
export interface JournalDelete<K extends RecordKind = RecordKind> {
  /** The journal it is in. */
  kind: K
  /** The id (or key) of the record. */
  delete: string
  /** The version it must still have. */
  expectVersion: number
}

/** One write of a `Journal.write` batch: a put or a delete, each a compare-and-set on the record's version. */
export type JournalWrite = JournalPut | JournalDelete

/** The outcome of one write: the new version, or the record that won instead (undefined if none). */
export type JournalWriteResult =
  | {
      /** The write was applied. */
      ok: true
      /** The record's new version. */
      version: number
    }
  | {
      /** The version did not match: nothing was written. */
      ok: false
      /** The record as it is now (undefined if there is none). */
      current: Versioned<RecordOf[RecordKind]> | undefined
    }

/** One page of a state in time order. */
export interface JournalListQuery {
  /** The state to list. */
  state: string
  /** Start after this position (the last record of the previous page). */
  after?: {
    /** Its state time, in ms since the epoch. */
    stateTime: number
    /** Its id (or key). */
    key: string
  }
  /** Only records whose state time is before this, in ms since the epoch. */
  before?: number
  /** The most records of the page. */
  limit: number
  /**
   * Only records whose content holds this text, ignoring case (record-text.ts says what text a
   * record holds). Records whose content is sealed are returned too: the sealed journal above
   * opens them and keeps those that hold it. The page may then end early only at the lane's end.
   */
  search?: string
}

/** One scope's journals: the inbox, the outbox and the instances' heartbeats. */
export interface Journal {
  /** The scope whose journals these are. */
  readonly scopeId: string
  /** Reads records by id; `undefined` where one does not exist. */
  read<K extends RecordKind>(kind: K, ids: readonly string[]): Promise<(Versioned<RecordOf[K]> | undefined)[]>
  /**
   * Applies each write as its own compare-and-set, in order. `name` says which journal write this
   * is (a crash point, or an operator's action; several when writes were merged into one call);
   * backends ignore it, the crash-testing kit does not.
   */
  write(name: WriteLabel, writes: readonly JournalWrite[]): Promise<JournalWriteResult[]>
  /** Records of `kind` due by `until` (retry time or lease expiry), soonest first, at most `limit`. */
  due<K extends RecordKind>(kind: K, until: number, limit: number): Promise<Versioned<RecordOf[K]>[]>
  /** One page of a state of `kind`, oldest change first. */
  list<K extends RecordKind>(kind: K, query: JournalListQuery): Promise<Versioned<RecordOf[K]>[]>
  /** How many records of `kind` each state holds (states with none may be left out). */
  count(kind: RecordKind): Promise<Record<string, number>>
  /** Deletes up to `limit` records of `state` last changed before `olderThan`, oldest first; resolves to how many. */
  purge(kind: RecordKind, state: string, olderThan: number, limit: number): Promise<number>
  /** How many records `purge` with the same arguments would delete, counted up to `limit`. */
  countOlder(kind: RecordKind, state: string, olderThan: number, limit: number): Promise<number>
}

/** Where the journals live. The bot starts and stops it; `start`/`stop` are idempotent and counted. */
export interface DurabilityBackend {
  /** A short name for messages and reports: 'memory', 'file', 'sqlite', 'redis', 'postgres', 'events'. */
  readonly kind: string
  /** Whether several processes may share it (the default instanceId then gets a per-boot suffix). */
  readonly shared: boolean
  /** Whether different scopes are kept apart; a backend without scopes must not be shared by bots. */
  readonly scoped: boolean
  /** Opens connections and files. Idempotent. */
  start(): Promise<void>
  /** Closes what `start` opened. Idempotent. */
  stop(): Promise<void>
  /** The backend's clock (ms since the epoch): the server's where there is one. */
  now(): Promise<number>
  /** The journals of one scope (a bot's namespace). */
  journal(scopeId: string): Journal
  /** The scopes that hold records. */
  scopes(): Promise<string[]>
  /**
   * Resolves, with the reason, once the backend stopped answering for good (every call in flight and
   * every later one never settles), as the crash-testing kit's `crashable(backend)` does at its crash.
   * The bot's start() and stop() then resolve and idle() rejects with it, instead of hanging. A
   * backend whose calls always settle leaves it out; a wrapper forwards its inner backend's.
   */
  whenHalted?(): Promise<Error>
}
