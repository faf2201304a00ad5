/**
 * `RedisDurability`: journals in Redis or Redis Cluster, shared by any number of replicas. Keys
 * live under `<prefix>:{durable:inbox:<scope>}`, `<prefix>:{durable:outbox:<scope>}` and
 * `<prefix>:{durable:instances:<scope>}` (keys.ts); nothing else under the prefix is touched.
 * It survives a crash as well as the server's persistence does (AOF with `appendfsync always` or
 * `everysec`).
 */
import { KvDurability, refuseUnknownOptions } from '../../core/backend-internals.js'
import type { JournalSteps } from '../../core/durability/steps/journal-steps.js'
import { RedisKeys } from './keys.js'
import { RedisKv, type RedisKvOptions } from './kv.js'
import { RedisSteps } from './steps.js'

/** The names `new RedisDurability(…)` takes (`connection` is a store's own, from `store.durability()`). */
export const REDIS_OPTION_NAMES = [
  'client',
  'url',
  'cluster',
  'sentinel',
  'tls',
  'logger',
  'connectTimeoutMs',
  'commandTimeoutMs',
  'prefix',
  'mustExist',
  'acceptEviction',
  'requirePersistence',
  'waitReplicas',
  'waitTimeoutMs',
  'connection',
] as const

/** Options other clients or backends take, which a Redis caller may pass by mistake. */
export const REDIS_MISPLACED: Readonly<Record<string, string>> = {
  keyPrefix: 'botmesh takes prefix (an ioredis keyPrefix would be applied twice)',
  tablePrefix: "Redis takes prefix; tablePrefix is PostgreSQL's",
  host: 'pass url: "redis://host:port"',
  port: 'pass url: "redis://host:port"',
  db: 'put the database in the url: "redis://host:port/<db>"',
  connectionString: 'Redis takes url',
  ssl: 'Redis takes tls (and a rediss:// url)',
  sentinels: 'give sentinel: { sentinels: [{ host, port }], name } (or a redis+sentinel:// url)',
  name: 'the master name goes in sentinel: { sentinels, name }',
}

/**
 * Options of `RedisDurability`: exactly one of `client` (yours, never closed by botmesh), `url`,
 * `cluster` or `sentinel` (botmesh's own connection, opened on start and closed on stop), and the key prefix
 * (`@default 'botmesh'`); optionally `connectTimeoutMs` / `commandTimeoutMs` (5000 each) and a
 * `logger` for connection errors and warnings, `acceptEviction` (a server that may evict keys
 * is refused without it), and `waitReplicas` with `waitTimeoutMs` (a journal write counts as done
 * once that many replicas have it: replica-wait.ts).
 */
export type RedisDurabilityOptions = RedisKvOptions

/** A shared durability backend over Redis (`kind: 'redis'`, `shared: true`). */
export class RedisDurability extends KvDurability {
  declare readonly kv: RedisKv

  constructor(options: RedisDurabilityOptions) {
    refuseUnknownOptions('RedisDurability', options, REDIS_OPTION_NAMES, REDIS_MISPLACED)
    super(new RedisKv(options), { kind: 'redis', shared: true })
  }

  /** The key prefix. */
  get prefix(): string {
    return this.kv.prefix
  }

  /**
   * @internal The steps of one scope's journal (steps/journal-steps.ts), carried in shared script
   * calls (steps.ts): open them once per scope, as each opening has calls of its own in flight.
   */
  steps(scopeId: string): JournalSteps {
    return new RedisSteps(this.kv.scope(scopeId), new RedisKeys(this.prefix).steps(scopeId))
  }
}
