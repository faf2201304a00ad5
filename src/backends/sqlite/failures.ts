/**
 * Maps a better-sqlite3 error onto botmesh's errors, so callers match on a stable `code`:
 * a damaged file is `JOURNAL_CORRUPT` (not retryable, names the file), a busy or failing disk is
 * `JOURNAL_UNAVAILABLE` / `STORE_UNAVAILABLE` (retryable: nothing was changed), anything else is a
 * programming error and passes through as it is.
 */
import { BotmeshError, JournalCorruptError } from '../../core/errors/errors.js'
import { unavailableError, type FailureRole } from '../common/failure-role.js'

/** Result codes (primary, without the extended suffix) that mean "try again later". */
const TRANSIENT = new Set([
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_IOERR',
  'SQLITE_FULL',
  'SQLITE_CANTOPEN',
  'SQLITE_PROTOCOL',
  'SQLITE_READONLY',
  'SQLITE_NOMEM',
])
/** Result codes that mean the file is damaged or is not a database. */
const DAMAGED = new Set(['SQLITE_CORRUPT', 'SQLITE_NOTADB'])

/** The botmesh error for `error`, met while doing `what` on `file`. */
export function sqliteFailure(error: unknown, file: string, what: string, role: FailureRole): unknown {
  if (error instanceof BotmeshError) return error
  const primary = primaryCode(error)
  if (primary === undefined) return error
  const detail = `${what} failed: ${(error as Error).message} (${(error as { code: string }).code})`
  if (DAMAGED.has(primary)) return new JournalCorruptError(file, detail)
  if (!TRANSIENT.has(primary)) return error
  const message = `${file}: ${detail}`
  return unavailableError(role, message, error)
}

/** `SQLITE_BUSY` for `SQLITE_BUSY_SNAPSHOT`; undefined for an error that is not SQLite's. */
function primaryCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return undefined
  const second = code.indexOf('_', 'SQLITE_'.length)
  return second === -1 ? code : code.slice(0, second)
}
