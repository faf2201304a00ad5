import { ERROR_CODES, type EncryptionErrorCode, type ErrorCode } from './error-codes.js'

export { ERROR_CODES, isErrorCode, type ErrorCode, type ChannelErrorCode, type EncryptionErrorCode } from './error-codes.js'

/**
 * Every error an operator may meet is a `BotmeshError` with a stable `code`, whether it is worth
 * retrying, and the error that caused it. Its code is one of `ERROR_CODES` (src/core/error-codes.ts);
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

/** The configuration passed to the bot or a backend is invalid. */
export class ConfigError extends BotmeshError {
  constructor(message: string) {
    super(ERROR_CODES.CONFIG_INVALID, message)
  }
}

/** A lease was taken over by another holder (it expired, or an operator changed the record). */
export class LeaseLostError extends BotmeshError {
  constructor(kind: string, id: string, token: number) {
    super(ERROR_CODES.LEASE_LOST, `the ${kind} record "${id}" is no longer leased with fencing token ${token}`)
  }
}

/** The codes a journal that cannot record or give back something fails with. */
export type JournalUnavailableCode = typeof ERROR_CODES.JOURNAL_UNAVAILABLE | EncryptionErrorCode

/** The journal could not record or read something; the operation did not take effect. */
export class JournalUnavailableError extends BotmeshError {
  constructor(message: string, cause?: unknown, code: JournalUnavailableCode = ERROR_CODES.JOURNAL_UNAVAILABLE) {
    super(code, message, { retryable: code === ERROR_CODES.JOURNAL_UNAVAILABLE, cause })
  }
}

/**
 * An inbound event a provider handed over cannot be an inbox record: it is not an object, or its
 * `id` or `chatId` is not a non-empty string. Final: the same event fails the same way every time.
 */
export class InvalidEventError extends BotmeshError {
  constructor(problem: string) {
    super(ERROR_CODES.EVENT_INVALID, `the inbound event cannot be journaled: ${problem}`)
  }
}

/** A field of an inbound event cannot be written as JSON (a circular object, a BigInt). Final. */
export class EventNotJournalableError extends BotmeshError {
  constructor(eventId: string, field: string, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause)
    super(
      ERROR_CODES.EVENT_NOT_JOURNALABLE,
      `the inbound event "${eventId}" cannot be journaled: its field "${field}" is not JSON (${reason})`,
      {
        cause,
      },
    )
  }
}

/** Why a sealed value cannot be opened. */
const UNREADABLE = {
  missing: 'which is not configured',
  wrong: 'but the key configured under that id is another key (its check value differs)',
  altered: 'and that key does not open it: the value was altered, or moved from another record, chat or scope',
} as const

/**
 * A record (or a store's message log line or checkpoint) is sealed under an encryption key this
 * process was not given, or under another key than the one it holds under that id. The value is
 * left as it is: the bot neither runs, charges, dead-letters nor purges such a record until the
 * key is configured. A journal that cannot give a record back is unavailable for it, hence the
 * base class; the message names the key id, never a key.
 */
export class EncryptionKeyMissingError extends JournalUnavailableError {
  /** The id of the key the value is sealed under. */
  readonly keyId: string
  /** `missing`: no key of that id is configured; `wrong`: the key under that id is another one; `altered` (code `ENCRYPTION_ALTERED`): the key is right and the value does not open. */
  readonly reason: keyof typeof UNREADABLE
  constructor(what: string, keyId: string, reason: keyof typeof UNREADABLE) {
    const fix =
      reason === 'altered'
        ? 'restore it from a backup'
        : 'give that key in durability.encryption.keys (the CLI: --keys <file> or BOTMESH_ENCRYPTION_KEYS)'
    const code = reason === 'altered' ? ERROR_CODES.ENCRYPTION_ALTERED : ERROR_CODES.ENCRYPTION_KEY_MISSING
    super(`${what} is sealed under encryption key "${keyId}", ${UNREADABLE[reason]}: ${fix}`, undefined, code)
    this.keyId = keyId
    this.reason = reason
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

/** The codes a damaged journal is refused with. */
export type JournalDamageCode = typeof ERROR_CODES.JOURNAL_CORRUPT | typeof ERROR_CODES.APPEND_LOG_CORRUPT

/** A backend's journal file or table holds damage that open() refuses to apply half-way. */
export class JournalCorruptError extends BotmeshError {
  /** The damaged file (or table). */
  readonly file: string
  constructor(file: string, detail: string, code: JournalDamageCode = ERROR_CODES.JOURNAL_CORRUPT) {
    super(code, `${file}: ${detail}; restore it from a backup or move it aside`)
    this.file = file
  }
}

/** A complete log entry in the middle of an append log fails its checksum or shape. */
export class AppendLogCorruptError extends JournalCorruptError {
  /** The damaged entry's line in the log, from 1. */
  readonly line: number
  /** The damaged entry's byte offset in the log. */
  readonly offset: number
  constructor(file: string, line: number, offset: number, detail: string) {
    super(file, `append log entry at line ${line} (byte offset ${offset}) is damaged: ${detail}`, ERROR_CODES.APPEND_LOG_CORRUPT)
    this.line = line
    this.offset = offset
  }
}

/** A journal is held by another live process (or already open in this one). */
export class JournalLockedError extends BotmeshError {
  /** The journal that is held. */
  readonly file: string
  /** The process that holds it, when its lock says. */
  readonly pid: number | undefined
  constructor(file: string, pid: number | undefined, detail?: string) {
    super(
      ERROR_CODES.JOURNAL_LOCKED,
      detail ?? `${file} is locked by process ${pid ?? 'unknown'}; stop that process or open the journal read-only`,
    )
    this.file = file
    this.pid = pid
  }
}

/** A record the operation names does not exist. */
export class RecordNotFoundError extends BotmeshError {
  constructor(kind: string, id: string) {
    super(ERROR_CODES.RECORD_NOT_FOUND, `no ${kind} record "${id}"`)
  }
}

/** An operation does not apply to a record in its current state. */
export class InvalidStateError extends BotmeshError {
  constructor(kind: string, id: string, state: string, expected: readonly string[]) {
    super(ERROR_CODES.INVALID_STATE, `the ${kind} record "${id}" is ${state}; expected ${expected.join(' or ')}`)
  }
}

/** A send was dead-lettered (a final error, or its retries ran out); `cause` is the last provider error. */
export class SendDeadError extends BotmeshError {
  /** The outbox key of the dead-lettered send. */
  readonly key: string
  constructor(key: string, detail: string, cause?: unknown) {
    super(ERROR_CODES.SEND_DEAD, `the send "${key}" is dead-lettered: ${detail}`, { retryable: false, cause })
    this.key = key
  }
}

/**
 * `bot.enqueue` of content the outbox cannot journal (over `outbox.maxPayloadBytes`, or not
 * encodable, such as a stream). Enqueue promises a journaled send, so it refuses instead of sending
 * inline: nothing was sent.
 */
export class PayloadNotJournaledError extends BotmeshError {
  /** The key the send would have had. */
  readonly key: string
  constructor(key: string, detail: string) {
    super(
      ERROR_CODES.PAYLOAD_NOT_JOURNALED,
      `bot.enqueue("${key}") was refused and nothing was sent: ${detail}. Pass media by url or path instead of a Buffer or stream, raise outbox.maxPayloadBytes, or use bot.send (which sends such content without the outbox)`,
    )
    this.key = key
  }
}

/**
 * A driver or channel client package is not installed (each loads only when its backend, provider
 * or exporter is used). `install` is what to pass to npm install when npm's default tag would not
 * do (`baileys@^7.0.0-rc14`).
 */
export class DriverMissingError extends BotmeshError {
  /** The npm package to install. */
  readonly driver: string
  constructor(driver: string, backend: string, cause?: unknown, install = driver) {
    super(ERROR_CODES.DRIVER_MISSING, `${backend} needs the "${driver}" package, which is not installed: run npm install ${install}`, {
      cause,
    })
    this.driver = driver
  }
}

/** The bot's store could not be reached; the operation did not take effect. */
export class StoreUnavailableError extends BotmeshError {
  constructor(message: string, cause?: unknown) {
    super(ERROR_CODES.STORE_UNAVAILABLE, message, { retryable: true, cause })
  }
}

/** Redis answered a command with an error that retrying will not cure (a foreign key of the wrong type under the prefix, a script error). */
export class RedisCommandError extends BotmeshError {
  constructor(what: string, reply: string, cause?: unknown) {
    super(ERROR_CODES.REDIS_COMMAND_FAILED, `Redis refused ${what}: ${reply}`, { retryable: false, cause })
  }
}

/**
 * botmesh's connection refused the TLS certificate a Redis or PostgreSQL server showed: signed by a
 * CA it was not told to trust, made out to another host name, expired. Not retryable: the
 * settings (or the server's certificate) must change. `reason` is the TLS library's code
 * (`SELF_SIGNED_CERT_IN_CHAIN`, `ERR_TLS_CERT_ALTNAME_INVALID`, `CERT_HAS_EXPIRED`, …).
 */
export class TlsCertificateError extends BotmeshError {
  /** The TLS library's code for the refusal. */
  readonly reason: string
  constructor(message: string, reason: string, cause?: unknown) {
    super(ERROR_CODES.TLS_CERTIFICATE_REFUSED, message, { cause })
    this.reason = reason
  }
}

/** A journal was closed; open it again to use it. */
export class JournalClosedError extends BotmeshError {
  /** The closed journal. */
  readonly file: string
  constructor(file: string) {
    super(ERROR_CODES.JOURNAL_CLOSED, `${file} was closed; open it again to read or write it`)
    this.file = file
  }
}

/** A write reached a journal opened read-only (no live process holds it; reopen it writable to change it). */
export class JournalReadOnlyError extends BotmeshError {
  /** The journal opened read-only. */
  readonly file: string
  constructor(file: string) {
    super(ERROR_CODES.JOURNAL_READ_ONLY, `${file} is open read-only; open it without readOnly to change it`)
    this.file = file
  }
}

/** The codes a backend URL is refused with. */
export type BackendUrlCode =
  typeof ERROR_CODES.BACKEND_URL_INVALID | typeof ERROR_CODES.BACKEND_SCHEME_UNKNOWN | typeof ERROR_CODES.BACKEND_NOT_AVAILABLE

/**
 * A backend URL that cannot be used: malformed (`BACKEND_URL_INVALID`), naming a scheme botmesh does
 * not know (`BACKEND_SCHEME_UNKNOWN`), or a backend this build does not have yet (`BACKEND_NOT_AVAILABLE`).
 * The message never carries the URL's password.
 */
export class BackendUrlError extends BotmeshError {
  constructor(message: string, code: BackendUrlCode = ERROR_CODES.BACKEND_URL_INVALID) {
    super(code, message)
  }
}

/** A journal file a tool was asked to read does not exist, or is not a journal at all (a directory, 0 bytes, another format). */
export class JournalMissingError extends BotmeshError {
  /** The path that was asked for. */
  readonly file: string
  constructor(file: string, detail: string) {
    super(ERROR_CODES.JOURNAL_MISSING, `${file} ${detail}`)
    this.file = file
  }
}

/** An options object held a key nothing reads (misspelt or misplaced); code `CONFIG_INVALID`, like every bad option. */
export class UnknownOptionError extends ConfigError {
  /** What refused them (`FileDurability.open`). */
  readonly owner: string
  /** The options nobody reads, as the caller spelled them. */
  readonly options: readonly string[]

  constructor(owner: string, options: readonly string[], message: string) {
    super(message)
    this.owner = owner
    this.options = options
  }
}
