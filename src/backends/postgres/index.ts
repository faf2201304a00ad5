/**
 * `botmesh/postgres-store`: the PostgreSQL backend. `PostgresDurability` keeps the journals in one
 * table shared by every replica; `PostgresStore` keeps the bot's store, and its `durability()`
 * gives the journals on the same pool. The `pg` driver loads only when one of them starts.
 *
 * @module botmesh/postgres-store
 */
export { PostgresDurability, type PostgresDurabilityOptions } from './durability.js'
export { PostgresStore, type PostgresStoreOptions } from './store.js'
export { PostgresKv, type PostgresKvOptions } from './kv.js'
export { ROOT_SCOPE } from '../../core/spi.js'
export { PostgresConnection, type PostgresConnectionOptions, type PostgresLogger } from './connection.js'
export { POSTGRES_LIMITS, type PostgresTimeouts } from './limits.js'
export type { StoreTlsOptions } from '../common/tls.js'
export { TABLE_PREFIX_DEFAULT, TABLE_PREFIX_PATTERN, durableTables, storeTables, type DurableTables, type StoreTables } from './tables.js'
