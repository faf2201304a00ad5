/**
 * The error classes a user catches, one per thing to do about an error; `code` carries the detail
 * (src/core/errors/error-codes.ts). Every error botmesh throws is a `BotmeshError`, and most are one of
 * these groups; `ProviderError` and its subclasses (provider-errors.ts) are the channel's group.
 * A narrower class a module throws (a locked journal, a dead-lettered send) extends its group and
 * stays internal: match on `instanceof` of the group, then on `code`.
 */
import { ERROR_CODES, type ErrorCode } from './error-codes.js'

/**
 * Every error an operator may meet is a `BotmeshError` with a stable `code`, whether it is worth
 * retrying, and the error that caused it. Its code is one of `ERROR_CODES` (src/core/errors/error-codes.ts);
 * a provider error may also carry a channel's own code (`ProviderError`, `ChannelErrorCode`). An app
 * raising a `BotmeshError` with a code of its own passes that code as the type argument:
 * `new BotmeshError<'MY_CODE'>('MY_CODE', …)`; without it, only a registry code compiles.
 */
export class BotmeshError<Code extends string = ErrorCode> extends Error {
  /** A stable, documented identifier: scripts and alerts match on it, never on the message. */
  readonly code: Code
  /** Whether the same operation may succeed if tried again later. */
  readonly retryable: boolean

  constructor(code: NoInfer<Code>, message: string, options: { retryable?: boolean; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = new.target.name
    this.code = code
    this.retryable = options.retryable ?? false
  }
}

/** The codes of a configuration to fix before starting again. */
export type ConfigErrorCode =
  | typeof ERROR_CODES.CONFIG_INVALID
  | typeof ERROR_CODES.DRIVER_MISSING
  | typeof ERROR_CODES.BACKEND_URL_INVALID
  | typeof ERROR_CODES.BACKEND_SCHEME_UNKNOWN
  | typeof ERROR_CODES.BACKEND_NOT_AVAILABLE
  | typeof ERROR_CODES.TLS_CERTIFICATE_REFUSED

/**
 * The configuration is wrong: fix it and start again; retrying as it is cannot help. `code` says
 * what: `CONFIG_INVALID` (an invalid or unknown option), `DRIVER_MISSING` (a driver package to
 * install), `BACKEND_URL_INVALID`, `BACKEND_SCHEME_UNKNOWN`, `BACKEND_NOT_AVAILABLE` (a backend
 * URL), `TLS_CERTIFICATE_REFUSED` (a server certificate this connection does not trust).
 */
export class ConfigError extends BotmeshError {
  declare readonly code: ConfigErrorCode
  constructor(message: string, options: { code?: ConfigErrorCode; cause?: unknown } = {}) {
    super(options.code ?? ERROR_CODES.CONFIG_INVALID, message, { cause: options.cause })
  }
}

/** The codes a journal that cannot record or give back something fails with. */
export type JournalUnavailableCode =
  | typeof ERROR_CODES.JOURNAL_UNAVAILABLE
  | typeof ERROR_CODES.ENCRYPTION_KEY_MISSING
  | typeof ERROR_CODES.ENCRYPTION_ALTERED
  | typeof ERROR_CODES.ENCRYPTION_UNSEALED

/**
 * The journal could not record or read something; the operation did not take effect. Code
 * `JOURNAL_UNAVAILABLE` is retryable (the store is down or slow: try again later); the `ENCRYPTION_*`
 * codes are not: a record sealed under a key not configured (`ENCRYPTION_KEY_MISSING`: give the
 * key), altered (`ENCRYPTION_ALTERED`) or in clear where sealed values are required
 * (`ENCRYPTION_UNSEALED`): restore it from a backup.
 */
export class JournalUnavailableError extends BotmeshError {
  declare readonly code: JournalUnavailableCode
  constructor(message: string, cause?: unknown, code: JournalUnavailableCode = ERROR_CODES.JOURNAL_UNAVAILABLE) {
    super(code, message, { retryable: code === ERROR_CODES.JOURNAL_UNAVAILABLE, cause })
  }
}

/** The codes of a journal file or table an operator must see to. */
export type JournalStateCode =
  | typeof ERROR_CODES.JOURNAL_CORRUPT
  | typeof ERROR_CODES.APPEND_LOG_CORRUPT
  | typeof ERROR_CODES.JOURNAL_LOCKED
  | typeof ERROR_CODES.JOURNAL_CLOSED
  | typeof ERROR_CODES.JOURNAL_READ_ONLY
  | typeof ERROR_CODES.JOURNAL_MISSING

/** Where in a damaged append log the damage is. */
export interface JournalPosition {
  /** The damaged entry's line in the log, from 1. */
  line: number
  /** The damaged entry's byte offset in the log. */
  offset: number
}

/**
 * A journal file (or table) is in a state the operation cannot use, and an operator sees to it.
 * `JOURNAL_CORRUPT` and `APPEND_LOG_CORRUPT` (with `line` and `offset`): damage open() refuses to
 * apply half-way; restore the file from a backup or move it aside. `JOURNAL_LOCKED`: another live
 * process holds it. `JOURNAL_CLOSED`, `JOURNAL_READ_ONLY`: open it again (writable). `JOURNAL_MISSING`:
 * the path is not a journal. Not retryable.
 */
export class JournalStateError extends BotmeshError {
  declare readonly code: JournalStateCode
  /** The journal file (or table). */
  readonly file: string
  /** The damaged entry's line in an append log, from 1 (`APPEND_LOG_CORRUPT`). */
  readonly line: number | undefined
  /** The damaged entry's byte offset in an append log (`APPEND_LOG_CORRUPT`). */
  readonly offset: number | undefined
  constructor(code: JournalStateCode, file: string, message: string, position?: JournalPosition) {
    super(code, message)
    this.file = file
    this.line = position?.line
    this.offset = position?.offset
  }
}

/** The codes of a record that is not where an operation expected it. */
export type RecordStateCode =
  | typeof ERROR_CODES.RECORD_NOT_FOUND
  | typeof ERROR_CODES.INVALID_STATE
  | typeof ERROR_CODES.CONCURRENT_CHANGE
  | typeof ERROR_CODES.LEASE_LOST

/**
 * A record is not where the operation expected it: read it again and decide again. Codes
 * `RECORD_NOT_FOUND`, `INVALID_STATE` (the operation does not apply to its state),
 * `CONCURRENT_CHANGE` (it changed while an operator's change was written; nothing was
 * overwritten; retryable), `LEASE_LOST` (another holder took its lease over).
 */
export class RecordStateError extends BotmeshError {
  declare readonly code: RecordStateCode
  constructor(code: RecordStateCode, message: string, options: { retryable?: boolean } = {}) {
    super(code, message, options)
  }
}

/** The codes of a send that will not go out. */
export type SendFailedCode = typeof ERROR_CODES.SEND_DEAD | typeof ERROR_CODES.PAYLOAD_NOT_JOURNALED

/**
 * A send will not go out, and nothing retries it: `SEND_DEAD` (dead-lettered: a final error, or its
 * retries ran out; `cause` is the last provider error; `botmesh retry` sends it again) or
 * `PAYLOAD_NOT_JOURNALED` (`bot.enqueue` of content the outbox cannot journal; nothing was sent).
 */
export class SendFailedError extends BotmeshError {
  declare readonly code: SendFailedCode
  /** The outbox key of the send. */
  readonly key: string
  constructor(code: SendFailedCode, key: string, message: string, cause?: unknown) {
    super(code, message, { cause })
    this.key = key
  }
}

/** A send was journaled but could not be delivered within `outbox.inlineMaxMs`; the sweeper keeps retrying it. */
export class SendDeferredError extends BotmeshError {
  /** The outbox key under which the send is journaled. */
  readonly key: string
  constructor(key: string, cause?: unknown) {
    super(ERROR_CODES.SEND_DEFERRED, `the send "${key}" is journaled and will be retried in the background`, { retryable: true, cause })
    this.key = key
  }
}
