/**
 * `botmesh/sqlite-store`: the bot's store and the durability journals in one SQLite file
 * (better-sqlite3, loaded only when a file is opened).
 *
 * ```ts
 * const store = new SQLiteStore({ file: './data/bot.db' })
 * const bot = new Bot({ provider, store, durability: { backend: store.durability(), instanceId: 'bot-1' } })
 * ```
 *
 * @module botmesh/sqlite-store
 */
export { SQLiteStore, type SQLiteStoreOptions } from './store.js'
export { SQLiteDurability, type SQLiteDurabilityOptions } from './durability.js'
export { SQLiteKv, type SQLiteKvOptions } from './kv.js'
export type { SQLiteConnectionOptions } from './connection.js'
export { compactSqlite, type SQLiteCheckpointReport } from './compact.js'
export { verifySqlite, type SQLiteVerifyReport } from './verify.js'
export { SQLITE_LIMITS, type SQLiteTimeouts } from './limits.js'
export { SCHEMA_VERSION, TABLES } from './schema.js'
