/**
 * `MemoryDurability`: the default backend (`durability: {}`). Retries, backoff and dead letters in
 * this process; nothing survives a crash.
 */
import { KvDurability } from '../journal/kv-durability.js'
import { MemoryKv, type MemoryKvOptions } from './memory-kv.js'

export { MemoryKv, type MemoryKvOptions } from './memory-kv.js'

/** Journals kept in this process's memory. */
export class MemoryDurability extends KvDurability {
  constructor(options: MemoryKvOptions = {}) {
    super(new MemoryKv(options), { kind: 'memory', shared: false })
  }
}
