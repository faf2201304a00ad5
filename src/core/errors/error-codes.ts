/**
 * Every `code` a botmesh error carries, in one place: scripts, alerts and the CLI's exit codes match
 * on these strings, so each keeps its value for good (the durability contract names some of them).
 * Write `ERROR_CODES.X` instead of the string; a test refuses a registry value spelled inline in
 * src/. A new code goes here first, and the CLI's exit-code table (src/cli/exit-codes.ts) then
 * fails to typecheck until it says which exit code the new one means.
 *
 * Backends, providers and the engine import the registry through `errors.ts`, which re-exports it.
 */
export const ERROR_CODES = {
  // The runtime and its journals (src/core)
  /** An option passed to the bot, a backend or a tool is invalid or unknown (`ConfigError`). */
  CONFIG_INVALID: 'CONFIG_INVALID',
  /** A lease was taken over by another holder (`LeaseLostError`). */
  LEASE_LOST: 'LEASE_LOST',
  /** The journal could not record or read something; retryable (`JournalUnavailableError`). */
  JOURNAL_UNAVAILABLE: 'JOURNAL_UNAVAILABLE',
  /** The bot's store could not be reached; retryable (`StoreUnavailableError`). */
  STORE_UNAVAILABLE: 'STORE_UNAVAILABLE',
  /** A send is journaled and the sweeper keeps retrying it (`SendDeferredError`). */
  SEND_DEFERRED: 'SEND_DEFERRED',
  /** A send was dead-lettered (`SendDeadError`). */
  SEND_DEAD: 'SEND_DEAD',
  /** `bot.enqueue` of content the outbox cannot journal; nothing was sent (`PayloadNotJournaledError`). */
  PAYLOAD_NOT_JOURNALED: 'PAYLOAD_NOT_JOURNALED',
  /** The `lastError` of a text part dead-lettered with an earlier part of the same text. */
  PREVIOUS_PART_DEAD: 'PREVIOUS_PART_DEAD',
  /** A record changed while an operator's change was being written; nothing was overwritten (`ConcurrentChangeError`). */
  CONCURRENT_CHANGE: 'CONCURRENT_CHANGE',
  /** A record the operation names does not exist (`RecordNotFoundError`). */
  RECORD_NOT_FOUND: 'RECORD_NOT_FOUND',
  /** An operation does not apply to a record in its current state (`InvalidStateError`). */
  INVALID_STATE: 'INVALID_STATE',
  /** An inbound event a provider handed over has no string `id` or `chatId`, or is not an object (`InvalidEventError`). */
  EVENT_INVALID: 'EVENT_INVALID',
  /** A field of an inbound event cannot be written as JSON (a circular object, a BigInt) (`EventNotJournalableError`). */
  EVENT_NOT_JOURNALABLE: 'EVENT_NOT_JOURNALABLE',
  /** A record is sealed under an encryption key that is not configured, or not the key of that id (`EncryptionKeyMissingError`). */
  ENCRYPTION_KEY_MISSING: 'ENCRYPTION_KEY_MISSING',
  /** A sealed value the right key does not open: altered, or moved to another scope, chat or record (`SealedValueAlteredError`). */
  ENCRYPTION_ALTERED: 'ENCRYPTION_ALTERED',
  /** A value in clear where `encryption.requireSealed` asks for sealed ones (`UnsealedValueError`). */
  ENCRYPTION_UNSEALED: 'ENCRYPTION_UNSEALED',

  // Journal files
  /** A journal file or table holds damage open() refuses to apply (`JournalCorruptError`). */
  JOURNAL_CORRUPT: 'JOURNAL_CORRUPT',
  /** A complete entry in the middle of an append log is damaged (`AppendLogCorruptError`). */
  APPEND_LOG_CORRUPT: 'APPEND_LOG_CORRUPT',
  /** A journal is held by another live process, or already open in this one (`JournalLockedError`). */
  JOURNAL_LOCKED: 'JOURNAL_LOCKED',
  /** A journal was closed (`JournalClosedError`). */
  JOURNAL_CLOSED: 'JOURNAL_CLOSED',
  /** A write reached a journal opened read-only (`JournalReadOnlyError`). */
  JOURNAL_READ_ONLY: 'JOURNAL_READ_ONLY',
  /** A journal file does not exist or is not a journal (`JournalMissingError`). */
  JOURNAL_MISSING: 'JOURNAL_MISSING',

  // Backends
  /** A backend's driver package is not installed (`DriverMissingError`). */
  DRIVER_MISSING: 'DRIVER_MISSING',
  /** Redis refused a command in a way retrying will not cure (`RedisCommandError`). */
  REDIS_COMMAND_FAILED: 'REDIS_COMMAND_FAILED',
  /** A malformed backend URL (`BackendUrlError`). */
  BACKEND_URL_INVALID: 'BACKEND_URL_INVALID',
  /** A backend URL with a scheme botmesh does not know (`BackendUrlError`). */
  BACKEND_SCHEME_UNKNOWN: 'BACKEND_SCHEME_UNKNOWN',
  /** A backend URL naming a backend this build does not have (`BackendUrlError`). */
  BACKEND_NOT_AVAILABLE: 'BACKEND_NOT_AVAILABLE',
  /** A backend the CLI was asked to open could not be opened. */
  BACKEND_OPEN_FAILED: 'BACKEND_OPEN_FAILED',
  /** The server refused the credentials of a backend URL. */
  AUTH_FAILED: 'AUTH_FAILED',
  /** A Redis or PostgreSQL server's TLS certificate was not trusted: an unknown CA, another host name, expired (`TlsCertificateError`). */
  TLS_CERTIFICATE_REFUSED: 'TLS_CERTIFICATE_REFUSED',
  /** The PostgreSQL backend was used before start(). */
  BACKEND_NOT_STARTED: 'BACKEND_NOT_STARTED',
  /** The SQLite or Redis backend was used before start(). */
  NOT_STARTED: 'NOT_STARTED',
  /** SQLite could not switch the file to WAL mode. */
  SQLITE_WAL_UNAVAILABLE: 'SQLITE_WAL_UNAVAILABLE',
  /** The SQLite file could not be created or opened. */
  SQLITE_OPEN_FAILED: 'SQLITE_OPEN_FAILED',
  /** The SQLite file holds a newer botmesh schema than this build knows. */
  SCHEMA_TOO_NEW: 'SCHEMA_TOO_NEW',
  /** The SQLite file's `durable` table was not created by botmesh. */
  SCHEMA_MISMATCH: 'SCHEMA_MISMATCH',

  // Provider errors (src/core/provider/provider-errors.ts, src/core/provider/media.ts): the outbox and loadMediaOf read them
  /** The channel asks to slow down (`RateLimitedError`). */
  RATE_LIMITED: 'RATE_LIMITED',
  /** The channel cannot carry this content; final (`UnsupportedContentError`). */
  UNSUPPORTED_CONTENT: 'UNSUPPORTED_CONTENT',
  /** The content is larger than the channel accepts; final (`PayloadTooLargeError`). */
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  /** The channel's session window with the recipient is closed; final (`OutsideSessionWindowError`). */
  OUTSIDE_SESSION_WINDOW: 'OUTSIDE_SESSION_WINDOW',
  /** The recipient cannot be reached; final (`RecipientUnreachableError`). */
  RECIPIENT_UNREACHABLE: 'RECIPIENT_UNREACHABLE',
  /** A standby replica may not use a leader-only transport session; retried (`ProviderNotLeaderError`). */
  PROVIDER_NOT_LEADER: 'PROVIDER_NOT_LEADER',
  /** Media cannot be downloaded: a replayed reference not rebuilt, or a download the policy refused (`MediaUnavailableError`). */
  MEDIA_UNAVAILABLE: 'MEDIA_UNAVAILABLE',
  /** `loadMediaOf` on a message without media. */
  NO_MEDIA: 'NO_MEDIA',
  /** The provider cannot download media. */
  DOWNLOAD_UNSUPPORTED: 'DOWNLOAD_UNSUPPORTED',
  /** The provider cannot rebuild journaled media references. */
  REHYDRATE_UNSUPPORTED: 'REHYDRATE_UNSUPPORTED',
  /** `bot.edit` on a provider that cannot edit messages. */
  EDIT_UNSUPPORTED: 'EDIT_UNSUPPORTED',

  // The bundled providers (src/providers)
  /** A stored media reference is not valid (`MediaRefInvalidError`). */
  MEDIA_REF_INVALID: 'MEDIA_REF_INVALID',
  /** The media could not be downloaded (`MediaDownloadError`). */
  MEDIA_DOWNLOAD_FAILED: 'MEDIA_DOWNLOAD_FAILED',
  /** A provider's options are invalid (`ProviderConfigError`). */
  PROVIDER_CONFIG_INVALID: 'PROVIDER_CONFIG_INVALID',
  /** The Meta Graph API refused the access token. */
  META_UNAUTHORIZED: 'META_UNAUTHORIZED',
  /** The Meta Graph API failed on its side; retried. */
  META_SERVER_ERROR: 'META_SERVER_ERROR',
  /** The Meta Graph API rejected the request; final. */
  META_REJECTED: 'META_REJECTED',
  /** A Meta Graph API request timed out. */
  META_TIMEOUT: 'META_TIMEOUT',
  /** A Meta Graph API request failed on the network. */
  META_NETWORK: 'META_NETWORK',
  /** A Meta send timed out under `sendTimeouts: 'final'`: it may have gone out, so it is not sent again. */
  META_SEND_AMBIGUOUS: 'META_SEND_AMBIGUOUS',
  /** A Telegram Bot API request failed on the network. */
  TELEGRAM_NETWORK: 'TELEGRAM_NETWORK',
  /** The Telegram Bot API refused the bot token. */
  TELEGRAM_UNAUTHORIZED: 'TELEGRAM_UNAUTHORIZED',
  /** The Telegram Bot API failed on its side; retried. */
  TELEGRAM_SERVER_ERROR: 'TELEGRAM_SERVER_ERROR',
  /** The Telegram Bot API rejected the request; final. */
  TELEGRAM_REJECTED: 'TELEGRAM_REJECTED',
  /** A channel's API refused the provider's credentials; final (`ChannelApiError`). */
  CHANNEL_UNAUTHORIZED: 'CHANNEL_UNAUTHORIZED',
  /** A channel's API failed on its side; retried (`ChannelApiError`). */
  CHANNEL_SERVER_ERROR: 'CHANNEL_SERVER_ERROR',
  /** A channel's API rejected the request; final (`ChannelApiError`). */
  CHANNEL_REJECTED: 'CHANNEL_REJECTED',
  /** A request to a channel's API timed out; retried (`ChannelApiError`). */
  CHANNEL_TIMEOUT: 'CHANNEL_TIMEOUT',
  /** A request to a channel's API failed on the network; retried (`ChannelApiError`). */
  CHANNEL_NETWORK: 'CHANNEL_NETWORK',

  // The CLI and the dashboard (src/cli, src/tui)
  /** The command line asks for something that cannot be done (`UsageError`). */
  USAGE: 'USAGE',
  /** A destructive command outside a terminal without --yes. */
  CONFIRMATION_REQUIRED: 'CONFIRMATION_REQUIRED',
  /** The operator answered no to a confirmation. */
  CANCELLED: 'CANCELLED',
  /** The backend holds several scopes and the command needs one (`ScopeRequiredError`). */
  SCOPE_REQUIRED: 'SCOPE_REQUIRED',
  /** The scope asked for is not in the backend. */
  SCOPE_UNKNOWN: 'SCOPE_UNKNOWN',
  /** The `--keys` file is open to its group or to others; refused unless `--insecure-keys-file` (`KeysFileInsecureError`). */
  KEYS_FILE_INSECURE: 'KEYS_FILE_INSECURE',
  /** A command ran and found failures it has already reported (`ReportedFailure`). */
  CHECK_FAILED: 'CHECK_FAILED',
  /** An import file or stream is not valid; nothing was imported. */
  IMPORT_INVALID: 'IMPORT_INVALID',
  /** Records of an import already exist in the target; nothing was imported. */
  IMPORT_CONFLICT: 'IMPORT_CONFLICT',
  /** The command does not apply to this backend. */
  NOT_APPLICABLE: 'NOT_APPLICABLE',
  /** The dashboard's connection is closing. */
  DASHBOARD_CLOSED: 'DASHBOARD_CLOSED',
  /** The backend did not answer a dashboard refresh in time; retryable. */
  REFRESH_TIMEOUT: 'REFRESH_TIMEOUT',

  // The testing kit and the demo (src/testing, src/demo)
  /** A bot whose `crashable(backend)` crashed: its idle() rejects with it (`BackendCrashedError`). */
  BACKEND_CRASHED: 'BACKEND_CRASHED',
  /** A crash-matrix case did not finish in time. */
  CRASH_CASE_TIMEOUT: 'CRASH_CASE_TIMEOUT',
  /** A crash-matrix case was interrupted. */
  CRASH_CASE_INTERRUPTED: 'CRASH_CASE_INTERRUPTED',
  /** A crash-matrix case may have left throwaway data behind. */
  CRASH_CASE_CLEANUP: 'CRASH_CASE_CLEANUP',
  /** The scripted failure of `MockProvider` and the crash workload's flaky channel; retried. */
  TRANSIENT: 'TRANSIENT',
  /** `MockProvider`: the channel accepted a send and the response was lost (scripted). */
  RESPONSE_LOST: 'RESPONSE_LOST',
  /** `MockProvider`: no media under that id. */
  MEDIA_NOT_FOUND: 'MEDIA_NOT_FOUND',
  /** The demo's scripted channel timeout. */
  UPSTREAM_TIMEOUT: 'UPSTREAM_TIMEOUT',
} as const

/** One of botmesh's own error codes. */
export type ErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES]

/**
 * A code a channel chose for its own `ProviderError` (a custom provider's `'DOWN'`, say): open, so
 * provider errors take any string. `ErrorCode | ChannelErrorCode` still offers botmesh's own codes
 * to an editor's completion; comparing `error.code === 'DOWN'` keeps working.
 */
export type ChannelErrorCode = string & {}

const KNOWN: ReadonlySet<string> = new Set(Object.values(ERROR_CODES))

/** Whether `value` is one of botmesh's own codes (a provider error may carry a channel's own). */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && KNOWN.has(value)
}

/** The codes of a sealed value a journal or a store cannot give back (src/core/encryption/encryption-errors.ts). */
export type EncryptionErrorCode = (typeof ERROR_CODES)['ENCRYPTION_KEY_MISSING' | 'ENCRYPTION_ALTERED' | 'ENCRYPTION_UNSEALED']
