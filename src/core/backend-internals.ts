/**
 * What the first-party backends share with the engine beyond the public SPI (src/core/spi.ts), so
 * they behave like it: the record helpers, refusing misspelt options, one lifecycle for background
 * loops, the engine's backoff curve, counting an index by pages, the search by content. Not a
 * package export: a change here breaks no user (dependency-cruiser keeps it first-party).
 *
 * @internal
 */
export * from './spi.js'
export { INBOX_STATES, OUTBOX_STATES, RECORD_KINDS, recordKey, recordIndex } from './durability/journal/records.js'
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
export type { Store, MessageLogEntry } from './store/store.js'
export { MESSAGE_LOG_LIMITS, MessageLogTrims, messageLogMaxOf, listedLines } from './store/message-log-trims.js'
export { MemoryKv, type MemoryKvOptions } from './durability/memory/memory-kv.js'
export { KvState } from './durability/memory/kv-state.js'
export type { FileHandle, FileStat, FileSystem, OpenHow } from './platform/file-system.js'
export { refuseUnknownOptions, optionNames } from './options/options.js'
export { BackgroundLoop } from './durability/loop.js'
export { backoffMs } from './durability/backoff.js'
export type { ResolvedBackoff } from './durability/config.js'
export { countByPaging, type IndexPosition } from './durability/journal/count-older.js'
export { recordText, holdsText, hasSealedContent, searchFragments, CONTENT_FIELDS } from './durability/journal/record-text.js'
export { searchPage, holdingOrSealed, SEARCH_READ_MIN, type SearchPick } from './durability/journal/search-pages.js'
