/**
 * `botmesh/core/spi`: what a custom backend implements. Implement `DurableKv` (versioned
 * compare-and-set plus two sorted indexes) and wrap it in `KvDurability`.
 *
 * @module botmesh/core/spi
 */
export type { DurableKv, Json, KvEntry, KvPut, KvDelete, KvOp, KvWriteResult, KvListQuery } from './durability/journal/kv.js'
export { ROOT_SCOPE } from './durability/journal/kv.js'
export { KvDurability, type KvDurabilityOptions } from './durability/journal/kv-durability.js'
export type {
  DurabilityBackend,
  Journal,
  JournalWrite,
  JournalPut,
  JournalDelete,
  JournalWriteResult,
  JournalListQuery,
  Versioned,
} from './durability/journal/backend.js'
export * from './durability/journal/records.js'
export {
  CRASH_POINTS,
  OPERATOR_WRITES,
  COORDINATION_WRITES,
  type CrashPoint,
  type OperatorWrite,
  type WriteName,
  type WriteLabel,
  type CoordinationWrite,
  writeNames,
} from './durability/journal/crash-points.js'
export type { Store, MessageLogEntry } from './store.js'
export { MESSAGE_LOG_LIMITS, MessageLogTrims, messageLogMaxOf, listedLines } from './message-log-trims.js'
export { MemoryKv, type MemoryKvOptions } from './durability/memory/memory-kv.js'
export { KvState } from './durability/memory/kv-state.js'
export type { FileHandle, FileStat, FileSystem, OpenHow } from './file-system.js'
// Helpers a backend shares with the engine, so it behaves like it: refusing misspelt options, one
// lifecycle for background loops, the engine's backoff curve, counting an index by pages.
export { refuseUnknownOptions, optionNames } from './options.js'
export { BackgroundLoop } from './durability/loop.js'
export { backoffMs } from './durability/backoff.js'
export type { ResolvedBackoff } from './durability/config.js'
export { countByPaging, type IndexPosition } from './durability/journal/count-older.js'
// The search by content: what text a record holds, and a search's page over a store that cannot search.
export { recordText, holdsText, hasSealedContent, searchFragments, CONTENT_FIELDS } from './durability/journal/record-text.js'
export { searchPage, holdingOrSealed, SEARCH_READ_MIN, type SearchPick } from './durability/journal/search-pages.js'
