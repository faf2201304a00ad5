/** Errors the CLI itself raises; each has a stable `code` like every botmesh error. */
import { BotmeshError, ERROR_CODES, type ErrorCode } from '../core/errors.js'

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
