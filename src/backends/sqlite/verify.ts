/**
 * `botmesh verify` for a SQLite file: SQLite's own integrity check, the shape of the `durable`
 * table (columns, primary key, indexes, count triggers), botmesh's schema version, and whether the
 * trigger-kept counts agree with the rows. It reports; it never repairs.
 */
import { existsSync } from 'node:fs'
import type BetterSqlite3 from 'better-sqlite3'
import { openExisting } from './connection.js'
import { SQLITE_LIMITS } from './limits.js'
import { SCHEMA_VERSION, TABLES, durableShapeProblems, schemaVersion, tableExists } from './schema.js'

/** The outcome of a verification. */
export interface SQLiteVerifyReport {
  /** The database file that was verified. */
  file: string
  /** True when no problem was found. */
  ok: boolean
  /** What is wrong, one sentence each. */
  problems: string[]
  /** Journal entries in the file (every scope), when the table could be read. */
  entries: number | null
  /** botmesh's schema version in the file (0: not set up). */
  schemaVersion: number | null
  /** SQLite's journal mode ('wal' once botmesh has opened the file). */
  journalMode: string | null
}

/** Count mismatches listed at most, so a badly broken file still gives a readable report. */
const COUNT_PROBLEMS_MAX = 20

/** Verifies an open database. */
export function verifyDatabase(db: BetterSqlite3.Database, file: string): SQLiteVerifyReport {
  const problems: string[] = []
  const integrity = db.pragma(`integrity_check(${SQLITE_LIMITS.integrityProblemsMax})`, { simple: false }) as { integrity_check: string }[]
  for (const { integrity_check: line } of integrity) if (line !== 'ok') problems.push(`integrity check: ${line}`)
  const journalMode = String(db.pragma('journal_mode', { simple: true }))
  let version: number | null = null
  try {
    version = schemaVersion(db, file)
    if (version !== SCHEMA_VERSION) problems.push(`botmesh schema version is ${version}, expected ${SCHEMA_VERSION}`)
  } catch (error) {
    problems.push((error as Error).message)
  }
  const shape = durableShapeProblems(db)
  problems.push(...shape)
  let entries: number | null = null
  if (shape.length === 0) {
    entries = (db.prepare(`SELECT count(*) AS n FROM ${TABLES.durable}`).get() as { n: number }).n
    problems.push(...countProblems(db))
  }
  return { file, ok: problems.length === 0, problems, entries, schemaVersion: version, journalMode }
}

/**
 * Verifies a SQLite file, opened read-only just for that: a missing file, or one that is not a
 * SQLite database, is a report with the problem, never a new or changed file.
 */
export async function verifySqlite(file: string): Promise<SQLiteVerifyReport> {
  const failed = (problem: string): SQLiteVerifyReport => ({
    file,
    ok: false,
    problems: [problem],
    entries: null,
    schemaVersion: null,
    journalMode: null,
  })
  if (!existsSync(file)) return failed(`${file} does not exist`)
  let db: BetterSqlite3.Database | undefined
  try {
    db = await openExisting(file, { readonly: true, owner: 'verifySqlite' })
    return verifyDatabase(db, file)
  } catch (error) {
    const code = (error as { code?: string }).code
    if (typeof code === 'string' && code.startsWith('SQLITE_'))
      return failed(`${file} cannot be read as a SQLite database: ${(error as Error).message} (${code})`)
    throw error
  } finally {
    db?.close()
  }
}

/** Where the trigger-kept counts disagree with the rows (a full scan: for `verify` only). */
function countProblems(db: BetterSqlite3.Database): string[] {
  const { durable, durableCounts } = TABLES
  if (!tableExists(db, durableCounts)) return []
  type Row = { scope: string; collection: string; state: string; n: number }
  const id = (row: Row) => JSON.stringify([row.scope, row.collection, row.state])
  const actual = new Map(
    (db.prepare(`SELECT scope, collection, state, count(*) AS n FROM ${durable} GROUP BY scope, collection, state`).all() as Row[]).map(
      (r) => [id(r), r],
    ),
  )
  const kept = new Map(
    (db.prepare(`SELECT scope, collection, state, n FROM ${durableCounts} WHERE n != 0`).all() as Row[]).map((r) => [id(r), r]),
  )
  const problems: string[] = []
  for (const key of new Set([...actual.keys(), ...kept.keys()])) {
    const real = actual.get(key)?.n ?? 0
    const counted = kept.get(key)?.n ?? 0
    if (real !== counted) problems.push(`${durableCounts} says ${counted} entries for ${key}, the table holds ${real}`)
    if (problems.length >= COUNT_PROBLEMS_MAX) break
  }
  return problems
}
