/**
 * `journaledIn(store)`: a bot's `store` and `durability` on one store that keeps the journals too, so
 * `new Bot({ provider, ...journaledIn(store) })` journals in the store's own file or database. An
 * explicit call, not a default: `durability: {}` stays a new MemoryDurability, as the contract says.
 */
import type { DurabilityOptions } from '../durability/config.js'
import type { DurabilityBackend } from '../durability/journal/backend.js'
import type { Store } from './store.js'

/** A store that also keeps the durability journals (SQLiteStore, RedisStore, PostgresStore): `durability()` opens them beside its data. */
export interface JournalingStore extends Store {
  /** The journals in this store's file or database. */
  durability(): DurabilityBackend
}

/** `BotConfig.store` and `BotConfig.durability`, to spread into a bot's config. */
export interface JournaledStore<S extends JournalingStore> {
  /** The store. */
  store: S
  /** The journals' options, with `backend: store.durability()`. */
  durability: DurabilityOptions
}

/**
 * The store, and the durability options with its own journals as the backend: `{ store, durability: { ...options, backend: store.durability() } }`.
 *
 * ```ts
 * const bot = new Bot({ provider, ...journaledIn(new SQLiteStore({ file: './data/bot.db' }), { instanceId: 'bot-1' }) })
 * ```
 */
export function journaledIn<S extends JournalingStore>(store: S, options: Omit<DurabilityOptions, 'backend'> = {}): JournaledStore<S> {
  return { store, durability: { ...options, backend: store.durability() } }
}
