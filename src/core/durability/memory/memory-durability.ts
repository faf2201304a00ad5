/**
 * `MemoryDurability`: the default backend (`durability: {}`). Retries, backoff and dead letters in
 * this process; nothing survives a crash.
 */
import { KvDurability } from '../journal/kv-durability.js'
import { MemoryKv, type MemoryKvOptions } from './memory-kv.js'
import type { JournalSteps } from '../steps/journal-steps.js'

export { MemoryKv, type MemoryKvOptions } from './memory-kv.js'

/** Journals kept in this process's memory. */
export class MemoryDurability extends KvDurability {
  readonly #kv: MemoryKv

  constructor(options: MemoryKvOptions = {}) {
    const kv = new MemoryKv(options)
    super(kv, { kind: 'memory', shared: false })
    this.#kv = kv
  }

  /** @internal The steps of one scope's journal (steps/journal-steps.ts): synchronous, with no promise. */
  steps(scopeId: string): JournalSteps {
    return this.#kv.steps(scopeId)
  }
}
