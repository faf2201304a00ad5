/**
 * `botmesh/events`: event journals whose records workers claim under leases with fencing tokens.
 * `FileEventJournal` (one process, the whole file rewritten per write) and
 * `SharedFileEventJournal` (a few processes on one host, under a cross-process mutex) implement
 * `LeasedEventJournal`; `EventWorker` runs records of one channel. `eventsDurability`
 * (`botmesh/events/durability`) runs a bot's durability on such a journal.
 *
 * @module botmesh/events
 */
export { FileEventJournal } from './file-journal.js'
export { SharedFileEventJournal } from './shared-journal.js'
export { EventWorker, type EventWorkerOptions, type EventWorkerStats, type EventRunContext } from './worker.js'
export type {
  LeasedEventJournal,
  EventStorage,
  StorageOp,
  StorageResult,
  AppendInput,
  AppendResult,
  EventListQuery,
  ClaimOptions,
  ClaimRef,
  FailOptions,
  ReplayQuery,
  EventPurgeQuery,
} from './journal.js'
export {
  EVENT_STATES,
  REPLAYABLE_EVENT_STATES,
  EVENTS_SNAPSHOT_FORMAT,
  type EventRecord,
  type EventRecordInput,
  type EventState,
  type EventLease,
  type EventError,
  type EventLane,
} from './record.js'
export type { FileEventJournalOptions, SharedFileEventJournalOptions } from './options.js'
export type { MutexBreak } from './mutex-file.js'
export { mutexPathOf } from './mutex-file.js'
export { EVENTS_LIMITS, WORKER_DEFAULTS } from './limits.js'
export { DURABLE_CHANNEL } from './append-plan.js'
// The error groups the journals throw (a lost lease: RecordStateError; a locked, closed or damaged
// journal: JournalStateError), the same classes as botmesh/core's.
export { RecordStateError, JournalStateError, JournalUnavailableError } from '../core/errors/errors.js'
