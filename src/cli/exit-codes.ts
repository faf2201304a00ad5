/**
 * The CLI's exit codes, defined once: scripts branch on them. `main.ts` is the only place that
 * exits; everything else throws, and `exitCodeOf` decides which code an error means.
 */
import { BotmeshError } from '../core/errors.js'

export const EXIT_CODES = {
  /** The command did what it was asked. */
  done: 0,
  /** It ran and something failed: a check found problems, a change lost a race, a server broke mid-way. */
  failed: 1,
  /** It was asked something it cannot do: bad usage, a bad URL, a record that does not exist… Nothing was changed. */
  badInput: 2,
} as const
export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES]

/**
 * Error codes that mean "bad usage or input" (DESIGN.md §6 and issue 5: a malformed URL, an
 * unknown scheme, a missing record, several scopes and none chosen, an unreachable server, wrong
 * credentials, a directory or 0-byte file, a damaged or locked journal). Each is refused before
 * anything changes.
 */
const BAD_INPUT_CODES = new Set([
  'USAGE',
  'CONFIG_INVALID',
  'BACKEND_URL_INVALID',
  'BACKEND_SCHEME_UNKNOWN',
  'BACKEND_NOT_AVAILABLE',
  'SCOPE_REQUIRED',
  'SCOPE_UNKNOWN',
  'RECORD_NOT_FOUND',
  'INVALID_STATE',
  'JOURNAL_MISSING',
  'JOURNAL_CORRUPT',
  'APPEND_LOG_CORRUPT',
  'JOURNAL_LOCKED',
  'JOURNAL_READ_ONLY',
  'JOURNAL_UNAVAILABLE',
  'STORE_UNAVAILABLE',
  'DRIVER_MISSING',
  'AUTH_FAILED',
  'BACKEND_OPEN_FAILED',
  'SQLITE_WAL_UNAVAILABLE',
  'IMPORT_CONFLICT',
  'IMPORT_INVALID',
  'NOT_APPLICABLE',
  'CONFIRMATION_REQUIRED',
])

/** The exit code an error stands for. */
export function exitCodeOf(error: unknown): ExitCode {
  if (error instanceof BotmeshError && BAD_INPUT_CODES.has(error.code)) return EXIT_CODES.badInput
  return EXIT_CODES.failed
}
