/**
 * `MemoryKv`: a `DurableKv` that lives in this process. It survives nothing, but gives every bot
 * the retries, backoff and dead letters of the engine with no setup.
 */
import { ROOT_SCOPE, type DurableKv, type KvEntry, type KvListQuery, type KvOp, type KvWriteResult } from '../kv.js'
import { KvState } from './kv-state.js'

/** Options of `MemoryKv`. */
export interface MemoryKvOptions {
  /** The clock leases are judged by. @default Date.now */
  now?: () => number
}

/** An in-process `DurableKv` with scopes. */
export class MemoryKv implements DurableKv {
  readonly #state: KvState
  readonly #scope: string
  readonly #now: () => number

  constructor(options: MemoryKvOptions = {}, shared?: { state: KvState; scope: string }) {
    this.#state = shared?.state ?? new KvState()
    this.#scope = shared?.scope ?? ROOT_SCOPE
    this.#now = options.now ?? Date.now
  }

  async start(): Promise<void> {}
  async stop(): Promise<void> {}

  async now(): Promise<number> {
    return this.#now()
  }

  async get(collection: string, keys: readonly string[]): Promise<(KvEntry | undefined)[]> {
    return keys.map((key) => this.#state.get(this.#scope, collection, key))
  }

  async write(ops: readonly KvOp[]): Promise<KvWriteResult[]> {
    return this.#apply(ops)
  }

  /**
   * `write` answered at once (DurableKv.writeNow): two promises fewer per journal write. Absent
   * while `write` is not the store's own (a spy, a scripted fault), so the replacement is called.
   */
  get writeNow(): ((ops: readonly KvOp[]) => KvWriteResult[]) | undefined {
    return this.write === OWN_WRITE ? this.#apply : undefined
  }

  readonly #apply = (ops: readonly KvOp[]): KvWriteResult[] => {
    const results: KvWriteResult[] = []
    for (const op of ops) {
      // The state keeps op.value itself (not the op): freezing it in place is the isolation.
      if (op.op === 'put') deepFreeze(op.value)
      results.push(this.#state.apply(this.#scope, op))
    }
    return results
  }

  async due(collection: string, until: number, limit: number): Promise<KvEntry[]> {
    return this.#state.due(this.#scope, collection, until, limit)
  }

  async list(collection: string, query: KvListQuery): Promise<KvEntry[]> {
    return this.#state.list(this.#scope, collection, query)
  }

  async count(collection: string): Promise<Record<string, number>> {
    return this.#state.count(this.#scope, collection)
  }

  async purge(collection: string, state: string, olderThan: number, limit: number): Promise<number> {
    const victims = this.#state.list(this.#scope, collection, { state, before: olderThan, limit })
    for (const entry of victims) this.#state.unload(this.#scope, collection, entry.key)
    return victims.length
  }

  async countOlder(collection: string, state: string, olderThan: number, limit: number): Promise<number> {
    return this.#state.countOlder(this.#scope, collection, state, olderThan, limit)
  }

  scope(scopeId: string): MemoryKv {
    return new MemoryKv({ now: this.#now }, { state: this.#state, scope: scopeId })
  }

  async scopes(): Promise<string[]> {
    return this.#state.scopes()
  }
}

/** MemoryKv's own write, as loaded. */
const OWN_WRITE = MemoryKv.prototype.write

/**
 * Stored values are frozen instead of copied: readers get the stored object itself, and a caller
 * that tries to change it fails loudly instead of changing the journal behind its back. (A deep
 * copy per read and write made the in-memory journal several times slower than no journal.)
 */
function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return
  Object.freeze(value)
  // Walked without Object.values: an array of the values per object was most of the cost.
  if (Array.isArray(value)) for (const item of value) deepFreeze(item)
  else {
    for (const key in value) {
      const item = (value as Record<string, unknown>)[key]
      if (item !== null && typeof item === 'object') deepFreeze(item)
    }
  }
}
