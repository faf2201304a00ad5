/** Errors the CLI itself raises; each has a stable `code` like every botmesh error. */
import { BotmeshError, ERROR_CODES, RecordNotFoundError, type ErrorCode } from '../core/errors.js'

/** The command line asks for something that cannot be done (a bad flag value, a missing choice). */
export class UsageError extends BotmeshError {
  constructor(message: string, code: ErrorCode = ERROR_CODES.USAGE) {
    super(code, message)
  }
}

/** The backend holds several scopes and the command needs one: the message lists them. */
export class ScopeRequiredError extends BotmeshError {
  readonly scopes: string[]
  constructor(scopes: string[], why: string) {
    super(ERROR_CODES.SCOPE_REQUIRED, `${why}; choose one with --scope <id> (or --bot <botId>): ${scopes.join(', ')}`)
    this.scopes = scopes
  }
}

/** A command that ran and found failures it has already reported (a conformance case, damage in verify). */
export class ReportedFailure extends BotmeshError {
  constructor(summary: string) {
    super(ERROR_CODES.CHECK_FAILED, summary)
  }
}

/**
 * The `--keys` file is open to its group or to others (any of mode 0o077), as ssh refuses a private
 * key: whoever can read it opens every sealed record. `--insecure-keys-file` reads it anyway.
 */
export class KeysFileInsecureError extends BotmeshError {
  readonly file: string
  /** The file's permission bits, e.g. 0o644. */
  readonly mode: number
  constructor(file: string, mode: number) {
    const octal = `0${(mode & 0o777).toString(8)}`
    super(
      ERROR_CODES.KEYS_FILE_INSECURE,
      `--keys: ${file} is open to its group or to others (mode ${octal}); encryption keys must be readable by their owner only: chmod 600 ${file} (or pass --insecure-keys-file to read it anyway)`,
    )
    this.file = file
    this.mode = mode & 0o777
  }
}

/** The command that works on each lane's records: what to suggest when a record is named to the other one. */
const COMMAND_OF = { inbox: 'replay', outbox: 'retry' } as const

/**
 * `retry <inbox id>` or `replay <outbox key>`: no record of the lane the command works on, but the
 * other lane has it, so the message says which command takes it. Still RECORD_NOT_FOUND (exit 2):
 * a script that branches on the code sees what it saw before.
 */
export class RecordInOtherLaneError extends RecordNotFoundError {
  /** The lane the command looked in. */
  readonly kind: 'inbox' | 'outbox'
  /** The named ids the other lane holds. */
  readonly elsewhere: string[]
  /** The command that takes them: `botmesh replay` for inbox ids, `botmesh retry` for outbox keys. */
  readonly suggestion: string
  constructor(kind: 'inbox' | 'outbox', missing: readonly string[], elsewhere: readonly string[]) {
    super(kind, missing.join('", "'))
    const other = kind === 'inbox' ? 'outbox' : 'inbox'
    const them = elsewhere.map((id) => `"${id}"`).join(', ')
    const what = elsewhere.length === 1 ? `is an ${other} record` : `are ${other} records`
    this.kind = kind
    this.elsewhere = [...elsewhere]
    this.suggestion = `botmesh ${COMMAND_OF[other]} ${elsewhere.map(shellWord).join(' ')}`
    this.message = `${this.message}: ${them} ${what}, which ${COMMAND_OF[other]} takes; try ${this.suggestion}`
  }
}

/** A word a POSIX shell reads back as is, so a suggested command can be pasted. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`
}
