/**
 * `RedisDurability`: journals in Redis or Redis Cluster, shared by any number of replicas. Keys
 * live under `<prefix>:{durable:inbox:<scope>}`, `<prefix>:{durable:outbox:<scope>}` and
 * `<prefix>:{durable:instances:<scope>}` (keys.ts); nothing else under the prefix is touched.
 * It survives a crash as well as the server's persistence does (AOF with `appendfsync always` or
 * `everysec`).
 */
import { KvDurability } from '../../core/durability/kv-durability.js'
import { RedisKv, type RedisKvOptions } from './kv.js'

/**
 * Options of `RedisDurability`: exactly one of `client` (yours, never closed by botmesh), `url` or
 * `cluster` (botmesh's own connection, opened on start and closed on stop), and the key prefix
 * (`@default 'botmesh'`); optionally `connectTimeoutMs` / `commandTimeoutMs` (5000 each) and a
 * `logger` for connection errors.
 */
export type RedisDurabilityOptions = RedisKvOptions

/** A shared durability backend over Redis (`kind: 'redis'`, `shared: true`). */
export class RedisDurability extends KvDurability {
  declare readonly kv: RedisKv

  constructor(options: RedisDurabilityOptions) {
    super(new RedisKv(options), { kind: 'redis', shared: true })
  }

  /** The key prefix. */
  get prefix(): string {
    return this.kv.prefix
  }
}
