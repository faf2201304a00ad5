/**
 * What PostgreSQL's `synchronous_commit` and `fsync` mean for the journal, as a
 * `PersistenceFinding` (common/persistence.ts judges and words it). With either `off` a commit
 * botmesh took as done can vanish: `synchronous_commit = off` acknowledges a commit before its WAL
 * is on disk (a crash of the server loses the last moment of commits), `fsync = off` never forces
 * anything to disk (a crash of the machine loses commits, or corrupts the database).
 *
 * Both are read as the backend's own sessions see them (a role's, a database's or the connection
 * string's `options` setting included), once per start, in the message of the start's own DDL
 * when there is one: no round trip of its own.
 */
import type { QueryResult } from 'pg'
import { reportPersistence, type PersistenceFinding } from '../common/persistence.js'
import type { PostgresConnection } from './connection.js'

/** The settings read: one row (synchronous_commit, fsync). */
export const PERSISTENCE_SETTINGS_SQL = `SELECT current_setting('synchronous_commit') AS synchronous_commit, current_setting('fsync') AS fsync`

/** One row of `PERSISTENCE_SETTINGS_SQL`. */
export interface PersistenceSettings {
  synchronous_commit: string
  fsync: string
}

/** Runs one query message (a multi-statement one answers with one result per statement). */
export type RunQuery = (text: string) => Promise<QueryResult | QueryResult[]>

/** Sessions of a connection checked (or being checked): a concurrent start waits for the same check. */
const checked = new WeakMap<object, Promise<void>>()

/**
 * Runs `statement` (a start's DDL; undefined where the start sends none) and, the first time in
 * this session of the connection, reads and judges the settings in the same message. Throws the
 * refusal under `requirePersistence`; warns otherwise.
 */
export async function runCheckingPersistence(connection: PostgresConnection, statement: string | undefined, run: RunQuery): Promise<void> {
  const session = connection.session
  const pending = checked.get(session)
  if (pending) {
    await Promise.all([statement === undefined ? undefined : run(statement), pending])
    return
  }
  const text =
    statement === undefined ? PERSISTENCE_SETTINGS_SQL : `${statement.trimEnd().replace(/;?$/, ';')}\n${PERSISTENCE_SETTINGS_SQL}`
  const check = run(text).then((answer) => {
    const results = Array.isArray(answer) ? answer : [answer]
    reportPersistence(postgresPersistence(results.at(-1)!.rows[0] as PersistenceSettings), {
      target: connection.target,
      requirePersistence: connection.requirePersistence,
      log: { warn: (message) => connection.warn(message), info: (message) => connection.info(message) },
      connection,
    })
  })
  checked.set(session, check)
  // A failed start (the server went away) checks again at the next one.
  check.catch(() => checked.delete(session))
  await check
}

/** The finding for one session's settings. */
export function postgresPersistence(settings: PersistenceSettings): PersistenceFinding {
  const fsyncOff = settings.fsync === 'off'
  const commitOff = settings.synchronous_commit === 'off'
  if (!fsyncOff && !commitOff) return { level: 'durable' }
  const found = [fsyncOff ? 'fsync is "off"' : '', commitOff ? 'synchronous_commit is "off"' : ''].filter(Boolean)
  const loses = [
    fsyncOff
      ? 'the server never forces its writes to disk, so a crash of the machine can lose committed journal writes or corrupt the database'
      : '',
    commitOff
      ? 'a commit is acknowledged before its WAL is on disk, so a crash of the server loses the last journal writes botmesh took as done (up to three times wal_writer_delay, 600 ms by default)'
      : '',
  ].filter(Boolean)
  const fix = [
    fsyncOff ? 'Set fsync = on in postgresql.conf' : '',
    commitOff
      ? "Set synchronous_commit = on (in postgresql.conf, or ALTER ROLE / ALTER DATABASE … SET synchronous_commit = on, and not in the connection string's options)"
      : '',
  ].filter(Boolean)
  return {
    level: 'volatile',
    id: fsyncOff ? 'postgres-fsync-off' : 'postgres-synchronous-commit-off',
    settings: found.join(' and '),
    loses: loses.join('; '),
    fix: fix.join('. '),
  }
}
