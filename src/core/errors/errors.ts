/**
 * The narrower errors the runtime, the journals and the backends throw. Each extends the group a
 * user catches (error-groups.ts: configuration, journal unavailable, journal state, record state, a
 * failed send) and stays internal: the package exports the groups, and `code` carries the detail.
 * Modules import every error class and the code registry from here.
 */
import { ERROR_CODES } from './error-codes.js'
import { BotmeshError, ConfigError, JournalStateError, JournalUnavailableError, RecordStateError, SendFailedError } from './error-groups.js'

export { ERROR_CODES, isErrorCode, type ErrorCode, type ChannelErrorCode, type EncryptionErrorCode } from './error-codes.js'
export * from './error-groups.js'

/** A lease was taken over by another holder (it expired, or an operator changed the record). */
export class LeaseLostError extends RecordStateError {
  constructor(kind: string, id: string, token: number) {
    super(ERROR_CODES.LEASE_LOST, `the ${kind} record "${id}" is no longer leased with fencing token ${token}`)
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

/** A backend's journal file or table holds damage that open() refuses to apply half-way. */
export class JournalCorruptError extends JournalStateError {
  constructor(file: string, detail: string) {
    super(ERROR_CODES.JOURNAL_CORRUPT, file, `${file}: ${detail}; restore it from a backup or move it aside`)
  }
}

/** A complete log entry in the middle of an append log fails its checksum or shape. */
export class AppendLogCorruptError extends JournalStateError {
  declare readonly line: number
  declare readonly offset: number
  constructor(file: string, line: number, offset: number, detail: string) {
    const where = `append log entry at line ${line} (byte offset ${offset}) is damaged: ${detail}`
    super(ERROR_CODES.APPEND_LOG_CORRUPT, file, `${file}: ${where}; restore it from a backup or move it aside`, { line, offset })
  }
}

/** A journal is held by another live process (or already open in this one). */
export class JournalLockedError extends JournalStateError {
  /** The process that holds it, when its lock says. */
  readonly pid: number | undefined
  constructor(file: string, pid: number | undefined, detail?: string) {
    const message = detail ?? `${file} is locked by process ${pid ?? 'unknown'}; stop that process or open the journal read-only`
    super(ERROR_CODES.JOURNAL_LOCKED, file, message)
    this.pid = pid
  }
}

/** A journal was closed; open it again to use it. */
export class JournalClosedError extends JournalStateError {
  constructor(file: string) {
    super(ERROR_CODES.JOURNAL_CLOSED, file, `${file} was closed; open it again to read or write it`)
  }
}

/** A write reached a journal opened read-only (no live process holds it; reopen it writable to change it). */
export class JournalReadOnlyError extends JournalStateError {
  constructor(file: string) {
    super(ERROR_CODES.JOURNAL_READ_ONLY, file, `${file} is open read-only; open it without readOnly to change it`)
  }
}

/** A journal file a tool was asked to read does not exist, or is not a journal at all (a directory, 0 bytes, another format). */
export class JournalMissingError extends JournalStateError {
  constructor(file: string, detail: string) {
    super(ERROR_CODES.JOURNAL_MISSING, file, `${file} ${detail}`)
  }
}

/** A record the operation names does not exist. */
export class RecordNotFoundError extends RecordStateError {
  constructor(kind: string, id: string) {
    super(ERROR_CODES.RECORD_NOT_FOUND, `no ${kind} record "${id}"`)
  }
}

/** An operation does not apply to a record in its current state. */
export class InvalidStateError extends RecordStateError {
  constructor(kind: string, id: string, state: string, expected: readonly string[]) {
    super(ERROR_CODES.INVALID_STATE, `the ${kind} record "${id}" is ${state}; expected ${expected.join(' or ')}`)
  }
}

/** A send was dead-lettered (a final error, or its retries ran out); `cause` is the last provider error. */
export class SendDeadError extends SendFailedError {
  constructor(key: string, detail: string, cause?: unknown) {
    super(ERROR_CODES.SEND_DEAD, key, `the send "${key}" is dead-lettered: ${detail}`, cause)
  }
}

/**
 * `bot.enqueue` of content the outbox cannot journal (over `outbox.maxPayloadBytes`, or not
 * encodable, such as a stream). Enqueue promises a journaled send, so it refuses instead of sending
 * inline: nothing was sent.
 */
export class PayloadNotJournaledError extends SendFailedError {
  constructor(key: string, detail: string) {
    super(
      ERROR_CODES.PAYLOAD_NOT_JOURNALED,
      key,
      `bot.enqueue("${key}") was refused and nothing was sent: ${detail}. Pass media by url or path instead of a Buffer or stream, raise outbox.maxPayloadBytes, or use bot.send (which sends such content without the outbox)`,
    )
  }
}

/**
 * A driver or channel client package is not installed (each loads only when its backend, provider
 * or exporter is used). `install` is what to pass to npm install when npm's default tag would not
 * do (`baileys@^7.0.0-rc14`).
 */
export class DriverMissingError extends ConfigError {
  /** The npm package to install. */
  readonly driver: string
  constructor(driver: string, backend: string, cause?: unknown, install = driver) {
    super(`${backend} needs the "${driver}" package, which is not installed: run npm install ${install}`, {
      code: ERROR_CODES.DRIVER_MISSING,
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
export class TlsCertificateError extends ConfigError {
  /** The TLS library's code for the refusal. */
  readonly reason: string
  constructor(message: string, reason: string, cause?: unknown) {
    super(message, { code: ERROR_CODES.TLS_CERTIFICATE_REFUSED, cause })
    this.reason = reason
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
export class BackendUrlError extends ConfigError {
  constructor(message: string, code: BackendUrlCode = ERROR_CODES.BACKEND_URL_INVALID) {
    super(message, { code })
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
