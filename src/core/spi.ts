/**
 * `botmesh/core/spi`: what a custom backend implements, and nothing else. Implement `DurableKv`
 * (versioned compare-and-set plus two sorted indexes), wrap it in `KvDurability`, and run the
 * conformance suite against it. The records and the journal interface are the types
 * `KvDurability` and the suite speak in.
 *
 * @module botmesh/core/spi
 */
export type { DurableKv, Json, KvEntry, KvPut, KvDelete, KvOp, KvWriteResult, KvListQuery } from './durability/journal/kv.js'
export { ROOT_SCOPE } from './durability/journal/kv.js'
export { KvDurability, type KvDurabilityOptions } from './durability/journal/kv-durability.js'
export type { WriteLabel, WriteName, CrashPoint, OperatorWrite, CoordinationWrite } from './durability/journal/crash-points.js'
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
export type {
  Lease,
  ErrorInfo,
  AuditEntry,
  InboxState,
  OutboxState,
  InboxRecord,
  OutboxRecord,
  InstanceRecord,
  PreviousRun,
  TurnHolder,
  TurnRecord,
  SessionRecord,
  RecordOf,
  RecordKind,
  RecordIndex,
} from './durability/journal/records.js'
export {
  CONFORMANCE_CASES,
  runCase,
  runCases,
  type BackendFactory,
  type ConformanceCase,
  type ConformanceContext,
  type CaseResult,
} from '../testing/conformance/index.js'
