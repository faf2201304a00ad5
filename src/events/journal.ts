/**
 * The `LeasedEventJournal` contract: an append-only journal of event records that workers claim
 * under leases with fencing tokens. `FileEventJournal` and `SharedFileEventJournal` implement it;
 * `eventsDurability` runs a bot on any implementation through its `storage` part.
 *
 * Every verb is atomic: it reads and changes the journal as one step, and when its promise
 * resolves the change is as durable as the journal makes it. Fencing is checked inside that step:
 * a completion or failure under a token that is no longer the record's lease is refused with
 * `LeaseLostError` (code `LEASE_LOST`) and changes nothing.
 */
import type { DurableKv, Json, KvEntry, KvListQuery, KvOp } from '../core/durability/journal/kv.js'
import type { EventError, EventLane, EventRecord, EventRecordInput, EventState } from './record.js'

/** One event to append. */
export interface AppendInput {
  /** Unique in the journal; appending an id that exists returns the existing record. @default a random UUID */
  id?: string
  /** @default null (claimed only by workers that ask for no channel) */
  channel?: string | null
  /** @default null */
  scope?: string | null
  /** What kind of event it is, for the worker that runs it. */
  eventType: string
  /** @default null */
  payload?: Json
  /** Not claimed before this time (ms since the epoch). @default at once */
  availableAt?: number | null
}

/** What an append did: the record stored under the id, and whether this call stored it. */
export interface AppendResult {
  /** Whether this call stored it (false: the id was there already). */
  appended: boolean
  /** The record stored under the id. */
  record: EventRecord
}

/** A page of records in append order. Fields left out do not filter. */
export interface EventListQuery {
  /** null: only records without a channel. */
  channel?: string | null
  /** Records of this scope only (null: only records without one). */
  scope?: string | null
  /** Records of this type only. */
  eventType?: string
  /** Records in this state only. */
  state?: EventState
  /** Only records appended after this `seq` (the last `seq` of the previous page). */
  afterSeq?: number
  /** @default 100 */
  limit?: number
}

/** What a claim takes. */
export interface ClaimOptions {
  /** Who claims: the lease's owner. */
  owner: string
  /** Records of this channel only; null or absent: only records without a channel. */
  channel?: string | null
  /** @default null */
  scope?: string | null
  /** Records to claim at most. @default 1 */
  limit?: number
  /** How long the lease lasts unless a heartbeat extends it. */
  leaseMs: number
  /** A record that already had this many runs is dead-lettered instead of claimed. @default unlimited */
  maxAttempts?: number
  /** Written on the lease, for an owner that tells its own runs apart. */
  incarnation?: string
}

/** A claimed record: its id and the fencing token the claim got. */
export interface ClaimRef {
  /** The claimed record's id. */
  id: string
  /** The fencing token the claim got: completing or failing the record needs it. */
  token: number
}

/** How a failed run ends. */
export interface FailOptions {
  /** Claim it again from this time on. @default at once */
  retryAt?: number
  /** Give up: the record goes to `dead`. @default false */
  dead?: boolean
}

/** Which records a replay re-queues (done, failed or dead ones; others are left as they are). */
export interface ReplayQuery {
  /** These records only. */
  ids?: readonly string[]
  /** Records of this channel only (null: only records without one). */
  channel?: string | null
  /** Records of this scope only. */
  scope?: string | null
  /** Records of this type only. */
  eventType?: string
  /** @default ['done', 'failed', 'dead'] */
  states?: readonly EventState[]
  /** @default 1000 */
  limit?: number
}

/** Which records a purge deletes. */
export interface EventPurgeQuery {
  /** Records whose last change is older than this (ms since the epoch). */
  olderThan: number
  /** @default ['done'] */
  states?: readonly EventState[]
  /** Records of this channel only (null: only records without one). @default every channel */
  channel?: string | null
  /** Records of this scope only (null: only records without one). @default every scope */
  scope?: string | null
  /** @default 1000 */
  limit?: number
}

/** A compare-and-set write of the storage: an event record, or a side entry (the outbox kept in the journal). */
export type StorageOp =
  /** Insert (expectVersion 0) or replace a record in its lane. An insert of an id used in any lane fails. */
  | {
      /** An event record. */
      target: 'event'
      /** A put. */
      op: 'put'
      /** The whole record. */
      record: EventRecordInput
      /** The version it must still have: 0 for an insert. */
      expectVersion: number
    }
  /** Delete a record if its version is still expectVersion. */
  | {
      /** An event record. */
      target: 'event'
      /** A delete. */
      op: 'delete'
      /** The lane it is in. */
      lane: EventLane
      /** Its id. */
      id: string
      /** The version it must still have. */
      expectVersion: number
    }
  /** A write of a side entry (the bot's instances, turns and sessions) in a scope. */
  | {
      /** A side entry. */
      target: 'side'
      /** The scope it is in. */
      scope: string
      /** The entry's own compare-and-set. */
      op: KvOp
    }

/** The outcome of one storage op: the new version, or what won instead. */
export type StorageResult =
  | {
      /** The op was applied. */
      ok: true
      /** The new version. */
      version: number
    }
  | {
      /** The version did not match: nothing was written. */
      ok: false
      /** What is stored now (undefined if nothing). */
      current: EventRecord | KvEntry | undefined
    }

/**
 * The storage verbs `eventsDurability` builds on: versioned compare-and-set of records and of side
 * entries, and the per-lane indexes. Records are grouped in lanes (one channel and scope).
 */
export interface EventStorage {
  /**
   * Applies each op as its own compare-and-set, in order, committed together. `heartbeat: true`
   * says the ops only extend leases: a journal may keep them until its next change is written.
   */
  write(ops: readonly StorageOp[], options?: { heartbeat?: boolean }): Promise<StorageResult[]>
  /** Records of the lane by id, in order (undefined where none, or where the id is in another lane). */
  read(lane: EventLane, ids: readonly string[]): Promise<(EventRecord | undefined)[]>
  /** Records of the lane with due <= until (retry time or lease expiry), soonest first. */
  due(lane: EventLane, until: number, limit: number): Promise<EventRecord[]>
  /** One page of a state of the lane, by (updatedAt, id). */
  listState(lane: EventLane, query: KvListQuery): Promise<EventRecord[]>
  /** How many records of the lane each state holds. */
  countStates(lane: EventLane): Promise<Record<string, number>>
  /** Deletes up to `limit` records of `state` in the lane changed before `olderThan`. */
  purgeState(lane: EventLane, state: string, olderThan: number, limit: number): Promise<number>
  /** How many records `purgeState` with the same arguments would delete, up to `limit` (optional: else counted by pages of `listState`). */
  countOlderState?(lane: EventLane, state: string, olderThan: number, limit: number): Promise<number>
  /** The scopes that hold records on `channel`. */
  scopes(channel: string): Promise<string[]>
  /** Side entries kept in the journal's own file, as a `DurableKv` with scopes; undefined if the journal keeps none. */
  readonly sidecar: DurableKv | undefined
  /** Resolves once every write made so far is committed or failed. */
  flush(): Promise<void>
}

/** An events journal whose records are claimed under leases with fencing tokens. */
export interface LeasedEventJournal {
  /** What the journal is (its file), for messages. */
  readonly name: string
  /**
   * Who may write it: one locked process (`'locked'`), several processes (`'shared'`), nobody
   * (`'read-only'`: every write is refused), or nobody checks (`'unguarded'`: `eventsDurability`
   * refuses it).
   */
  readonly writers: 'locked' | 'shared' | 'read-only' | 'unguarded'
  /** Whether `close()` was called. */
  readonly closed: boolean
  /** The journal's clock (ms since the epoch): leases are judged by it. */
  now(): Promise<number>
  /** Journals one event; a redelivered id returns the record already there. */
  append(input: AppendInput): Promise<AppendResult>
  /** Journals a batch of events in one write. */
  append(inputs: readonly AppendInput[]): Promise<AppendResult[]>
  /** Reads one record by id. */
  get(id: string): Promise<EventRecord | undefined>
  /** Reads records by id, `undefined` where one does not exist. */
  get(ids: readonly string[]): Promise<(EventRecord | undefined)[]>
  /** Records matching the query, in the journal's order. */
  list(query?: EventListQuery): Promise<EventRecord[]>
  /** Re-queues done, failed or dead records (pending, runs reset, no lease); returns those it re-queued. */
  replay(query: ReplayQuery | string | readonly string[]): Promise<EventRecord[]>
  /**
   * Leases up to `limit` records of one lane that are due: pending or failed records whose time
   * came, and processing records whose lease expired. Each claim gets a new, larger fencing token.
   */
  claim(options: ClaimOptions): Promise<EventRecord[]>
  /** Extends the leases still held under these tokens; false where the lease was lost. */
  heartbeat(claims: readonly ClaimRef[], leaseMs: number): Promise<boolean[]>
  /** Marks a claimed record done. Rejects with `LeaseLostError` when the token no longer holds it. */
  complete(claim: ClaimRef): Promise<EventRecord>
  /** Marks a claimed record failed (retried from `retryAt`) or dead. Rejects with `LeaseLostError` when the token no longer holds it. */
  fail(claim: ClaimRef, error: unknown, options?: FailOptions): Promise<EventRecord>
  /** Deletes finished records; resolves to how many. */
  purge(query: EventPurgeQuery): Promise<number>
  /** Records per state, over the records the query's channel and scope select. */
  count(query?: { channel?: string | null; scope?: string | null }): Promise<Record<string, number>>
  /** What `eventsDurability` builds on. */
  readonly storage: EventStorage
  /** Lets the operations already called finish and rejects later ones. Idempotent. */
  close(): Promise<void>
}

export type { EventError, EventLane, EventRecord, EventRecordInput, EventState }
