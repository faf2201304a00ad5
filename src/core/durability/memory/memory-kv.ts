/**
 * `MemoryKv`: a `DurableKv` that lives in this process. It survives nothing, but gives every bot
 * the retries, backoff and dead letters of the engine with no setup.
 */
import { ROOT_SCOPE, type DurableKv, type KvEntry, type KvListQuery, type KvOp, type KvWriteResult } from '../journal/kv.js'
import { KvState } from './kv-state.js'
import { MemorySteps } from './memory-steps.js'

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
    // The state keeps op.value itself, frozen in place (frozen.ts): that is the isolation.
    for (const op of ops) results.push(this.#state.apply(this.#scope, op))
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

  /** @internal The steps of one scope (steps/journal-steps.ts), answered at once on this state. */
  steps(scopeId: string): MemorySteps {
    return new MemorySteps(this.#state, scopeId)
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
