/**
 * The in-memory state of a `DurableKv`: entries per scope and collection with their two sorted
 * indexes. `MemoryKv` serves from it directly; the file backends keep one too and persist what it
 * applies.
 */
import type { KvEntry, KvListQuery, KvOp, KvWriteResult } from '../journal/kv.js'
import { deepFreeze, frozen } from './frozen.js'
import { SortedIndex } from './sorted-index.js'

interface Collection {
  entries: Map<string, KvEntry>
  due: SortedIndex
  states: Map<string, SortedIndex>
}

/** Entries of every scope, addressed as (scope, collection, key). */
export class KvState {
  readonly #scopes = new Map<string, Map<string, Collection>>()

  /** The entry under the key, or undefined: the stored object itself, frozen. */
  get(scope: string, collection: string, key: string): KvEntry | undefined {
    return frozen(this.own(scope, collection, key))
  }

  /**
   * @internal The entry under the key as stored, for the memory steps alone: what they wrote themselves
   * may not be frozen yet (`applyOwn`), and they hand out frozen only what reaches code outside the engine.
   */
  own(scope: string, collection: string, key: string): KvEntry | undefined {
    return this.#collection(scope, collection, false)?.entries.get(key)
  }

  /**
   * Applies one op as a compare-and-set. The stored entry holds `op.value` itself, frozen in place
   * (frozen.ts): readers get stored entries as they are, never copies.
   */
  apply(scope: string, op: KvOp): KvWriteResult {
    return this.#apply(scope, op, true)
  }

  /**
   * @internal `apply` for a value nobody else holds (the memory steps build their records fresh): it is
   * frozen when a reader first gets it, not here. Freezing in place was a fifth of a message's cost on them.
   */
  applyOwn(scope: string, op: KvOp): KvWriteResult {
    return this.#apply(scope, op, false)
  }

  #apply(scope: string, op: KvOp, freeze: boolean): KvWriteResult {
    const target = this.#collection(scope, op.collection, true)!
    const current = target.entries.get(op.key)
    if ((current?.version ?? 0) !== op.expectVersion) return { ok: false, current: freeze ? frozen(current) : current }
    if (current) unindex(target, current)
    if (op.op === 'delete') {
      target.entries.delete(op.key)
      return { ok: true, version: 0 }
    }
    const entry: KvEntry = {
      key: op.key,
      version: op.expectVersion + 1,
      value: op.value,
      state: op.state,
      stateTime: op.stateTime,
      due: op.due,
    }
    if (freeze) deepFreeze(entry)
    target.entries.set(op.key, entry)
    index(target, entry)
    return { ok: true, version: entry.version }
  }

  /** Puts an entry exactly as given (version included), frozen like `apply`'s: for loading a snapshot or replaying a log. */
  load(scope: string, collection: string, entry: KvEntry): void {
    deepFreeze(entry)
    const target = this.#collection(scope, collection, true)!
    const current = target.entries.get(entry.key)
    if (current) unindex(target, current)
    target.entries.set(entry.key, entry)
    index(target, entry)
  }

  /** Removes an entry whatever its version: for replaying a log. */
  unload(scope: string, collection: string, key: string): void {
    const target = this.#collection(scope, collection, false)
    const current = target?.entries.get(key)
    if (!target || !current) return
    unindex(target, current)
    target.entries.delete(key)
  }

  /** Entries due by `until`, soonest first, at most `limit`. */
  due(scope: string, collection: string, until: number, limit: number): KvEntry[] {
    const target = this.#collection(scope, collection, false)
    if (!target) return []
    return target.due.range({ untilInclusive: until, limit }).map(({ key }) => frozen(target.entries.get(key))!)
  }

  /** One page of a state, oldest change first. */
  list(scope: string, collection: string, query: KvListQuery): KvEntry[] {
    const index = this.#collection(scope, collection, false)?.states.get(query.state)
    if (!index) return []
    const entries = this.#collection(scope, collection, false)!.entries
    const after = query.after ? { time: query.after.stateTime, key: query.after.key } : undefined
    return index.range({ after, before: query.before, limit: query.limit }).map(({ key }) => frozen(entries.get(key))!)
  }

  /** How many entries of `state` have `stateTime < olderThan`, up to `limit`. */
  countOlder(scope: string, collection: string, state: string, olderThan: number, limit: number): number {
    const index = this.#collection(scope, collection, false)?.states.get(state)
    return Math.min(limit, index?.countBefore(olderThan) ?? 0)
  }

  /** How many entries each state holds. */
  count(scope: string, collection: string): Record<string, number> {
    const counts: Record<string, number> = {}
    for (const [state, index] of this.#collection(scope, collection, false)?.states ?? []) {
      if (index.size > 0) counts[state] = index.size
    }
    return counts
  }

  /** Scopes that hold at least one entry. */
  scopes(): string[] {
    return [...this.#scopes].filter(([, collections]) => [...collections.values()].some((c) => c.entries.size > 0)).map(([scope]) => scope)
  }

  /** Every entry, scope by scope (for snapshots and export). */
  *entries(): Generator<{
    /** The scope the entry is in. */
    scope: string
    /** The collection the entry is in. */
    collection: string
    /** The entry: the stored object itself, frozen. */
    entry: KvEntry
  }> {
    for (const [scope, collections] of this.#scopes) {
      for (const [collection, { entries }] of collections) {
        for (const entry of entries.values()) yield { scope, collection, entry: frozen(entry) }
      }
    }
  }

  /** How many entries all scopes hold. */
  get size(): number {
    let size = 0
    for (const collections of this.#scopes.values()) for (const c of collections.values()) size += c.entries.size
    return size
  }

  #collection(scope: string, collection: string, create: boolean): Collection | undefined {
    let collections = this.#scopes.get(scope)
    if (!collections) {
      if (!create) return undefined
      collections = new Map()
      this.#scopes.set(scope, collections)
    }
    let target = collections.get(collection)
    if (!target && create) {
      target = { entries: new Map(), due: new SortedIndex(), states: new Map() }
      collections.set(collection, target)
    }
    return target
  }
}

function index(target: Collection, entry: KvEntry): void {
  if (entry.due !== null) target.due.add(entry.due, entry.key)
  let state = target.states.get(entry.state)
  if (!state) {
    state = new SortedIndex()
    target.states.set(entry.state, state)
  }
  state.add(entry.stateTime, entry.key)
}

function unindex(target: Collection, entry: KvEntry): void {
  if (entry.due !== null) target.due.remove(entry.due, entry.key)
  target.states.get(entry.state)?.remove(entry.stateTime, entry.key)
}
