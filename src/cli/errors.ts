/** Errors only the command line raises (a failure already reported, a keys file open to others); each has a stable `code`. */
import { BotmeshError, ERROR_CODES } from '../core/errors/errors.js'

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
