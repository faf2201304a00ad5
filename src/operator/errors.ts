/** Errors of the operator library (bad input, a scope to choose, a record in the other lane); each has a stable `code`. */
import { BotmeshError, ERROR_CODES, RecordNotFoundError, type ErrorCode } from '../core/errors/errors.js'

/** A request asks for something that cannot be done (a bad flag or option value, a missing choice). */
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
