/**
 * The CLI's exit codes, defined once: scripts branch on them. `main.ts` is the only place that
 * exits; everything else throws, and `exitCodeOf` decides which code an error means.
 */
import { BotmeshError, isErrorCode, type ErrorCode } from '../core/errors/errors.js'

export const EXIT_CODES = {
  /** The command did what it was asked. */
  done: 0,
  /** It ran and something failed: a check found problems, a change lost a race, a server broke mid-way. */
  failed: 1,
  /** It was asked something it cannot do: bad usage, a bad URL, a record that does not exist… Nothing was changed. */
  badInput: 2,
} as const
export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES]

const { badInput: BAD_INPUT, failed: FAILED } = EXIT_CODES

/**
 * The exit code of every botmesh error code (docs/cli-json.md, "Errors"). Typed against `ErrorCode`:
 * a code added to `ERROR_CODES` does not compile until it is given its exit code here.
 *
 * `badInput` means "bad usage or input", refused before anything changed: a malformed URL, an
 * unknown scheme, a missing record, several scopes and none chosen, an unreachable server, wrong
 * credentials, a directory or 0-byte file, a damaged or locked journal. Everything else, and a
 * channel's own code, is `failed`.
 */
export const ERROR_EXIT_CODES = {
  // The runtime and its journals (src/core)
  CONFIG_INVALID: BAD_INPUT,
  LEASE_LOST: FAILED,
  JOURNAL_UNAVAILABLE: BAD_INPUT,
  STORE_UNAVAILABLE: BAD_INPUT,
  SEND_DEFERRED: FAILED,
  SEND_DEAD: FAILED,
  PAYLOAD_NOT_JOURNALED: FAILED,
  PREVIOUS_PART_DEAD: FAILED,
  CONCURRENT_CHANGE: FAILED,
  RECORD_NOT_FOUND: BAD_INPUT,
  INVALID_STATE: BAD_INPUT,
  ENCRYPTION_KEY_MISSING: BAD_INPUT,
  ENCRYPTION_ALTERED: BAD_INPUT,
  ENCRYPTION_UNSEALED: BAD_INPUT,
  EVENT_INVALID: FAILED,
  EVENT_NOT_JOURNALABLE: FAILED,

  // Journal files
  JOURNAL_CORRUPT: BAD_INPUT,
  APPEND_LOG_CORRUPT: BAD_INPUT,
  JOURNAL_LOCKED: BAD_INPUT,
  JOURNAL_CLOSED: FAILED,
  JOURNAL_READ_ONLY: BAD_INPUT,
  JOURNAL_MISSING: BAD_INPUT,

  // Backends
  DRIVER_MISSING: BAD_INPUT,
  REDIS_COMMAND_FAILED: FAILED,
  BACKEND_URL_INVALID: BAD_INPUT,
  BACKEND_SCHEME_UNKNOWN: BAD_INPUT,
  BACKEND_NOT_AVAILABLE: BAD_INPUT,
  BACKEND_OPEN_FAILED: BAD_INPUT,
  AUTH_FAILED: BAD_INPUT,
  TLS_CERTIFICATE_REFUSED: BAD_INPUT,
  BACKEND_NOT_STARTED: FAILED,
  NOT_STARTED: FAILED,
  SQLITE_WAL_UNAVAILABLE: BAD_INPUT,
  SQLITE_OPEN_FAILED: FAILED,
  SCHEMA_TOO_NEW: FAILED,
  SCHEMA_MISMATCH: FAILED,

  // Provider errors (src/core/provider/provider-errors.ts, src/core/provider/media.ts): the outbox and loadMediaOf read them
  RATE_LIMITED: FAILED,
  UNSUPPORTED_CONTENT: FAILED,
  PAYLOAD_TOO_LARGE: FAILED,
  OUTSIDE_SESSION_WINDOW: FAILED,
  RECIPIENT_UNREACHABLE: FAILED,
  PROVIDER_NOT_LEADER: FAILED,
  MEDIA_UNAVAILABLE: FAILED,
  NO_MEDIA: FAILED,
  DOWNLOAD_UNSUPPORTED: FAILED,
  REHYDRATE_UNSUPPORTED: FAILED,
  EDIT_UNSUPPORTED: FAILED,

  // The bundled providers (src/providers)
  MEDIA_REF_INVALID: FAILED,
  MEDIA_DOWNLOAD_FAILED: FAILED,
  PROVIDER_CONFIG_INVALID: FAILED,
  META_UNAUTHORIZED: FAILED,
  META_SERVER_ERROR: FAILED,
  META_REJECTED: FAILED,
  META_TIMEOUT: FAILED,
  META_NETWORK: FAILED,
  META_SEND_AMBIGUOUS: FAILED,
  TELEGRAM_NETWORK: FAILED,
  TELEGRAM_UNAUTHORIZED: FAILED,
  TELEGRAM_SERVER_ERROR: FAILED,
  TELEGRAM_REJECTED: FAILED,
  CHANNEL_UNAUTHORIZED: FAILED,
  CHANNEL_SERVER_ERROR: FAILED,
  CHANNEL_REJECTED: FAILED,
  CHANNEL_TIMEOUT: FAILED,
  CHANNEL_NETWORK: FAILED,

  // The CLI and the dashboard (src/cli, src/tui)
  USAGE: BAD_INPUT,
  CONFIRMATION_REQUIRED: BAD_INPUT,
  CANCELLED: FAILED,
  SCOPE_REQUIRED: BAD_INPUT,
  SCOPE_UNKNOWN: BAD_INPUT,
  KEYS_FILE_INSECURE: BAD_INPUT,
  CHECK_FAILED: FAILED,
  IMPORT_INVALID: BAD_INPUT,
  IMPORT_CONFLICT: BAD_INPUT,
  NOT_APPLICABLE: BAD_INPUT,
  DASHBOARD_CLOSED: FAILED,
  REFRESH_TIMEOUT: FAILED,

  // The testing kit and the demo (src/testing, src/demo)
  BACKEND_CRASHED: FAILED,
  CRASH_CASE_TIMEOUT: FAILED,
  CRASH_CASE_INTERRUPTED: FAILED,
  CRASH_CASE_CLEANUP: FAILED,
  TRANSIENT: FAILED,
  RESPONSE_LOST: FAILED,
  MEDIA_NOT_FOUND: FAILED,
  UPSTREAM_TIMEOUT: FAILED,
} as const satisfies Record<ErrorCode, ExitCode>

/** The exit code an error stands for. */
export function exitCodeOf(error: unknown): ExitCode {
  if (error instanceof BotmeshError && isErrorCode(error.code)) return ERROR_EXIT_CODES[error.code]
  return EXIT_CODES.failed
}
