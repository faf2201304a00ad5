/**
 * `KvDurability` turns any `DurableKv` into a full durability backend: it maps botmesh's records
 * onto JSON entries and their index fields, one collection per record kind. Fencing and state
 * machines stay in the engine, which names the version it expects on every write.
 */
import type { DurabilityBackend, Journal, JournalListQuery, JournalWrite, JournalWriteResult, Versioned } from './backend.js'
import type { WriteLabel } from './crash-points.js'
import type { DurableKv, Json, KvEntry, KvOp, KvWriteResult } from './kv.js'
import { countByPaging } from './count-older.js'
import { recordIndex, recordKey, type RecordKind, type RecordOf } from './records.js'
import { searchFragments } from './record-text.js'
import { searchPage } from './search-pages.js'

/** Options of `KvDurability`. */
export interface KvDurabilityOptions {
  /** A short name for messages and reports. @default 'kv' */
  kind?: string
  /** Whether several processes may share the store. @default false */
  shared?: boolean
}

/** A durability backend over a `DurableKv`. */
export class KvDurability implements DurabilityBackend {
  readonly kind: string
  readonly shared: boolean
  readonly scoped: boolean
  /** The store underneath, for tools that work on it directly (export, verify, compact). */
  readonly kv: DurableKv
  #starts = 0
  #starting: Promise<void> | undefined

  constructor(kv: DurableKv, options: KvDurabilityOptions = {}) {
    this.kv = kv
    this.kind = options.kind ?? 'kv'
    this.shared = options.shared ?? false
    this.scoped = typeof kv.scope === 'function'
  }

  /** Starts the store on the first call; later calls wait for it. */
  async start(): Promise<void> {
    this.#starts++
    this.#starting ??= this.kv.start().catch((error: unknown) => {
      this.#starting = undefined
      this.#starts = 0
      throw error
    })
    await this.#starting
  }

  /** Stops the store when every `start` has been matched by a `stop`. */
  async stop(): Promise<void> {
    if (this.#starts === 0) return
    this.#starts--
    if (this.#starts > 0) return
    this.#starting = undefined
    await this.kv.stop()
  }

  now(): Promise<number> {
    return this.kv.now()
  }

  journal(scopeId: string): Journal {
    return new KvJournal(this.kv.scope ? this.kv.scope(scopeId) : this.kv, scopeId)
  }

  async scopes(): Promise<string[]> {
    return this.kv.scopes ? this.kv.scopes() : []
  }
}

/** One scope's journals over a `DurableKv` view. */
class KvJournal implements Journal {
  /** A store that applies a write at once (DurableKv.writeNow): written without its promise. */
  private readonly writeNow: ((ops: readonly KvOp[]) => KvWriteResult[]) | undefined

  constructor(
    private readonly kv: DurableKv,
    readonly scopeId: string,
  ) {
    this.writeNow = kv.writeNow
  }

  async read<K extends RecordKind>(kind: K, ids: readonly string[]): Promise<(Versioned<RecordOf[K]> | undefined)[]> {
    const entries = await this.kv.get(kind, ids)
    return entries.map((entry) => (entry ? toVersioned<K>(entry) : undefined))
  }

  write(_name: WriteLabel, writes: readonly JournalWrite[]): Promise<JournalWriteResult[]> {
    // One promise per write, not an async function's two: this runs several times per message.
    let pending: Promise<KvWriteResult[]>
    try {
      const ops = writes.map(toOp)
      if (this.writeNow) return Promise.resolve(toJournalResults(this.writeNow(ops)))
      pending = this.kv.write(ops)
    } catch (error) {
      return Promise.reject(error)
    }
    return pending.then(toJournalResults)
  }

  async due<K extends RecordKind>(kind: K, until: number, limit: number): Promise<Versioned<RecordOf[K]>[]> {
    return (await this.kv.due(kind, until, limit)).map((entry) => toVersioned<K>(entry))
  }

  async list<K extends RecordKind>(kind: K, query: JournalListQuery): Promise<Versioned<RecordOf[K]>[]> {
    const { search, ...rest } = query
    if (search === undefined || search === '') return (await this.kv.list(kind, rest)).map((entry) => toVersioned<K>(entry))
    // The store narrows by the hint where it can; the records that hold the text are kept here.
    const hint = searchFragments(kind, search)
    return searchPage(kind, query, async ({ search: _search, ...page }) =>
      (await this.kv.list(kind, { ...page, search: hint })).map((entry) => toVersioned<K>(entry)),
    )
  }

  count(kind: RecordKind): Promise<Record<string, number>> {
    return this.kv.count(kind)
  }

  purge(kind: RecordKind, state: string, olderThan: number, limit: number): Promise<number> {
    return this.kv.purge(kind, state, olderThan, limit)
  }

  countOlder(kind: RecordKind, state: string, olderThan: number, limit: number): Promise<number> {
    if (this.kv.countOlder) return this.kv.countOlder(kind, state, olderThan, limit)
    return countByPaging((after, max) => this.kv.list(kind, { state, before: olderThan, after, limit: max }), limit)
  }
}

/** A journal write as the `DurableKv` op that carries it: the record's key and its index fields. */
export function toOp(write: JournalWrite): KvOp {
  if ('delete' in write) return { op: 'delete', collection: write.kind, key: write.delete, expectVersion: write.expectVersion }
  const { state, stateTime, due } = recordIndex(write.kind, write.record)
  const key = recordKey(write.kind, write.record)
  return {
    op: 'put',
    collection: write.kind,
    key,
    expectVersion: write.expectVersion,
    value: write.record as unknown as Json,
    state,
    stateTime,
    due,
  }
}

/** The results as the journal gives them: the common all-applied batch is returned as it is. */
function toJournalResults(results: KvWriteResult[]): JournalWriteResult[] {
  if (results.every((result) => result.ok)) return results as JournalWriteResult[]
  return results.map((result) => (result.ok ? result : { ok: false, current: result.current ? toVersioned(result.current) : undefined }))
}

function toVersioned<K extends RecordKind>(entry: KvEntry): Versioned<RecordOf[K]> {
  return { record: entry.value as unknown as RecordOf[K], version: entry.version }
}
