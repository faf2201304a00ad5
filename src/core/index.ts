/**
 * The bot runtime and its durability engine, with no backend but the in-memory default. The
 * package's `botmesh/core` entry (src/index.ts) adds the file backend the contract ships with it.
 */
export { Bot, type BotConfig, type BroadcastOutcome, type Logger } from './bot/bot.js'
export type { Context, Message, SendOptions, StateAccess, EnqueueResult } from './bot/context.js'
export type { Handler } from './pipeline/pipeline.js'
export { flow, Flow, type AnswerHandler, type FlowStep } from './bot/flow.js'
export type { OutgoingSend, SentMessage, BeforeSendHook, AfterSendHook } from './bot/hooks.js'
export {
  TEXT,
  IMAGE,
  VIDEO,
  AUDIO,
  DOCUMENT,
  INTERACTION,
  ANY,
  text,
  type Matcher,
  type NarrowingMatcher,
  type WithText,
  type WithMedia,
  type MediaOfType,
} from './bot/matchers.js'
export { loadMediaOf } from './provider/media.js'
export { journaledIn, type JournalingStore, type JournaledStore } from './store/journaled-in.js'
export type { NamespaceOptions } from './bot/namespace.js'
export type {
  IProvider,
  InboundEvent,
  InboundSink,
  MediaRef,
  MediaType,
  OutboundContent,
  ProviderSendResult,
  StoredMediaRef,
  Interaction,
  DeliveryReport,
  ProviderSendOptions,
} from './provider/provider.js'
// The error classes a user catches, one per thing to do (docs/api-surface.md); `code` says the rest.
export {
  ProviderError,
  RateLimitedError,
  UnsupportedContentError,
  PayloadTooLargeError,
  OutsideSessionWindowError,
  RecipientUnreachableError,
  ProviderNotLeaderError,
  MediaUnavailableError,
  type MediaUnavailableReason,
  type MediaRefusal,
} from './provider/provider-errors.js'
export {
  BotmeshError,
  ConfigError,
  JournalUnavailableError,
  JournalStateError,
  RecordStateError,
  SendFailedError,
  SendDeferredError,
  type ConfigErrorCode,
  type JournalUnavailableCode,
  type JournalStateCode,
  type JournalPosition,
  type RecordStateCode,
  type SendFailedCode,
} from './errors/error-groups.js'
export { ERROR_CODES, isErrorCode, type ErrorCode, type ChannelErrorCode, type EncryptionErrorCode } from './errors/error-codes.js'
export { MemoryStore, MEMORY_STORE_MESSAGE_LOG_MAX, type MemoryStoreOptions, type Store, type MessageLogEntry } from './store/store.js'
export type { Duration } from './options/duration.js'
export { MemoryDurability } from './durability/memory/memory-durability.js'
export type { MemoryKvOptions } from './durability/memory/memory-kv.js'
export type { DurabilityOptions, BackoffOptions, EncryptionOptions, CoordinationOptions } from './durability/config.js'
export { Durability, type RecordListQuery } from './durability/operations/facade.js'
export type { SendResult } from './durability/outbox/outbox.js'
export { METRIC_NAMES, type DurabilityMetrics, type MetricName } from './durability/metrics.js'
export type { OperatorChange } from './durability/operations/operations.js'
export type { DurabilityBackend } from './durability/journal/backend.js'
export {
  INBOX_STATES,
  OUTBOX_STATES,
  type InboxRecord,
  type OutboxRecord,
  type InstanceRecord,
  type PreviousRun,
  type InboxState,
  type OutboxState,
} from './durability/journal/records.js'
export { CRASH_POINTS, type CrashPoint } from './durability/journal/crash-points.js'
