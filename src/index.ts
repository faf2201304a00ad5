/**
 * `botmesh/core` (also `botmesh`): the runtime (src/core) composed with the file backend, which the
 * contract ships in the same package. src/core itself imports no backend.
 *
 * @module botmesh
 */
export * from './core/index.js'
export {
  FileDurability,
  FileKv,
  FILE_LIMITS,
  verifyJournal,
  salvageJournal,
  type FileDurabilityOptions,
  type AppendLogOptions,
  type CompactionReport,
  type FileJournalStats,
  type VerifyReport,
  type FileReport,
  type DamageCode,
  DAMAGE_CODES,
  type SalvageReport,
} from './backends/file/index.js'
