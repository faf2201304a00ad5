/**
 * The `DurableKv` contract: the small interface a storage backend implements to hold botmesh's
 * journals. It knows nothing of messages or sends: it stores JSON values under keys, grouped in
 * collections, and keeps two sorted indexes over fields the caller supplies.
 *
 * - **Versioned compare-and-set.** Every entry carries a version: 1 when inserted, +1 on each write.
 *   A put names the version it expects (0: the key must not exist); a mismatch changes nothing
 *   and returns the current entry, so the caller learns what won without another round trip.
 * - **The due index** orders entries by `due` (ms since the epoch; `null` keeps an entry out of it):
 *   when the sweeper must look at the entry next.
 * - **The state-time index** orders entries of one `state` by (`stateTime`, `key`): list a state
 *   in time order, page through it, count it, purge it by age.
 *
 * Fencing, leases and every state machine live above this interface (inbox.ts, outbox.ts and the
 * sweeper; `KvDurability` maps their records to entries), so a backend only has to make each
 * single-key write atomic.
 */

/** A JSON value as stored by a backend. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

/** One stored entry. */
export interface KvEntry<V = Json> {
  /** Its key, unique in its collection. */
  key: string
  /** 1 on insert, +1 on every write. */
  version: number
  /** The stored value. */
  value: V
  /** The state-time index groups entries by this. */
  state: string
  /** Orders entries within their state (ms since the epoch). */
  stateTime: number
  /** The due index: when the entry must next be looked at (ms since the epoch), or null for never. */
  due: number | null
}

/** Insert (expectVersion 0) or replace (expectVersion n) one entry. */
export interface KvPut {
  /** A put. */
  op: 'put'
  /** The collection (a journal kind). */
  collection: string
  /** The entry's key. */
  key: string
  /** 0: the key must not exist; n: the stored version must be n. */
  expectVersion: number
  /** The new value. */
  value: Json
  /** The state-time index groups entries by this. */
  state: string
  /** Orders the entry within its state (ms since the epoch). */
  stateTime: number
  /** When the entry must next be looked at (ms since the epoch), or null for never. */
  due: number | null
}

/** Delete one entry if its version is still `expectVersion`. */
export interface KvDelete {
  /** A delete. */
  op: 'delete'
  /** The collection (a journal kind). */
  collection: string
  /** The entry's key. */
  key: string
  /** The version the entry must still have. */
  expectVersion: number
}

/** One operation of a `DurableKv.write` batch: a put or a delete, each a compare-and-set on the entry's version. */
export type KvOp = KvPut | KvDelete

/** The outcome of one op: the new version (0 after a delete), or the entry that won instead. */
export type KvWriteResult =
  | {
      /** The op was applied. */
      ok: true
      /** The entry's new version (0 after a delete). */
      version: number
    }
  | {
      /** The version did not match: nothing was written. */
      ok: false
      /** The entry as it is now (undefined if there is none). */
      current: KvEntry | undefined
    }

/** A page of one state in (stateTime, key) order. */
export interface KvListQuery {
  /** The state to list. */
  state: string
  /** Start after this position (exclusive); the last entry of the previous page. */
  after?: {
    /** Its state time (ms since the epoch). */
    stateTime: number
    /** Its key. */
    key: string
  }
  /** Only entries with stateTime < before. */
  before?: number
  /** The most entries of the page. */
  limit: number
  /**
   * A search's hint: only entries whose value's JSON text, lowercase, holds one of these fragments
   * (plain text, matched literally). A store may return more entries than match (it may ignore the
   * hint), never fewer: `KvDurability` keeps the records that hold the text. A store with a query
   * language (SQLite, PostgreSQL) filters in it, so a search does not read every entry.
   */
  search?: readonly string[]
}

/**
 * A store for botmesh's journals. Every method may reject when the store is unreachable; nothing
 * is then changed (or, for `write`, each op either applied whole or not at all).
 */
export interface DurableKv {
  /** Connects and creates what the store needs (tables, scripts). Idempotent. */
  start(): Promise<void>
  /** Releases what `start` took. Idempotent. Resources the caller injected (a pool, a client) are left open. */
  stop(): Promise<void>
  /** The store's own clock in ms since the epoch (the server's, where there is a server), used to judge lease expiry. */
  now(): Promise<number>
  /** The entries under `keys`, in order; `undefined` where there is none. */
  get(collection: string, keys: readonly string[]): Promise<(KvEntry | undefined)[]>
  /**
   * Applies each op as its own atomic compare-and-set, in order, and returns one result per op.
   * When the promise resolves, every applied op is durable (as durable as the store is). A backend
   * may commit the ops of one call, and of concurrent calls, together (group commit). What the
   * caller changes in a value after the call, or in an entry it read, must never reach the store:
   * a store that keeps entries in memory freezes them (MemoryKv, FileKv), others store a copy.
   */
  write(ops: readonly KvOp[]): Promise<KvWriteResult[]>
  /**
   * Optional: `write` applied and answered at once, by a store that needs no I/O to apply it (the
   * memory store). The journal calls it instead of `write`, saving the promises of a write.
   */
  readonly writeNow?: ((ops: readonly KvOp[]) => KvWriteResult[]) | undefined
  /** Entries with `due <= until`, ascending by due, at most `limit`. */
  due(collection: string, until: number, limit: number): Promise<KvEntry[]>
  /** One page of a state, ascending by (stateTime, key). */
  list(collection: string, query: KvListQuery): Promise<KvEntry[]>
  /** How many entries each state holds (states with none may be absent). */
  count(collection: string): Promise<Record<string, number>>
  /**
   * Deletes up to `limit` entries of `state` with `stateTime < olderThan`, oldest first; resolves to
   * how many. Each entry is checked again as it is deleted: one that left the state meanwhile stays.
   */
  purge(collection: string, state: string, olderThan: number, limit: number): Promise<number>
  /**
   * How many entries `purge` with the same arguments would delete: those of `state` with
   * `stateTime < olderThan`, counted up to `limit`. Optional: without it, KvDurability pages
   * through `list` (a backend with an ordered index counts in one call).
   */
  countOlder?(collection: string, state: string, olderThan: number, limit: number): Promise<number>
  /**
   * A view of this store holding only one namespace's entries (`Bot.durability.scope`). Views share
   * the store's connection: start and stop the root. A store without `scope` must not be shared by bots.
   */
  scope?(scopeId: string): DurableKv
  /** The scopes that hold entries (on the root store). */
  scopes?(): Promise<string[]>
}

/**
 * The scope of a `DurableKv` that is not a view: what `kv.scope(id)` narrows from. Every backend
 * stores the root's entries under this scope id, so a journal written by one reads the same in
 * another.
 */
export const ROOT_SCOPE = ''
