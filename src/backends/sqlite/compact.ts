/**
 * `botmesh compact` for a SQLite file: checkpoint the WAL into the database file and truncate the
 * WAL to zero bytes. SQLite checkpoints on its own as the WAL grows (PASSIVE, never waiting for
 * readers); this is the explicit, complete one, for before a backup or after a large purge.
 */
import { statSync } from 'node:fs'
import type BetterSqlite3 from 'better-sqlite3'
import { openExisting } from './connection.js'
import { sqliteFailure } from './failures.js'
import type { SQLiteTimeouts } from './limits.js'

/** What a checkpoint did. */
export interface SQLiteCheckpointReport {
  /** The database file. */
  file: string
  /** Whether every frame was checkpointed and the WAL truncated (false: a reader held it past the busy timeout). */
  complete: boolean
  /** Frames the WAL held. */
  walFrames: number
  /** Frames copied into the database file. */
  checkpointedFrames: number
  /** The WAL's size before, in bytes. */
  walBytesBefore: number
  /** The WAL's size after, in bytes. */
  walBytesAfter: number
}

/** Checkpoints the WAL of an open database (`PRAGMA wal_checkpoint(TRUNCATE)`). */
export function checkpoint(db: BetterSqlite3.Database, file: string): SQLiteCheckpointReport {
  const walBytesBefore = walBytes(file)
  const [row] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number; log: number; checkpointed: number }[]
  return {
    file,
    complete: row!.busy === 0,
    walFrames: Math.max(row!.log, 0),
    checkpointedFrames: Math.max(row!.checkpointed, 0),
    walBytesBefore,
    walBytesAfter: walBytes(file),
  }
}

/**
 * Checkpoints the WAL of a SQLite file, opening it just for that (it must exist; nothing is
 * created). Safe while bots use the file: the checkpoint waits for their writes like any writer.
 */
export async function compactSqlite(file: string, options: SQLiteTimeouts = {}): Promise<SQLiteCheckpointReport> {
  let db: BetterSqlite3.Database | undefined
  try {
    db = await openExisting(file, { readonly: false, busyTimeoutMs: options.busyTimeoutMs, owner: 'compactSqlite' })
    return checkpoint(db, file)
  } catch (error) {
    throw sqliteFailure(error, file, 'checkpointing the WAL', 'journal')
  } finally {
    db?.close()
  }
}

function walBytes(file: string): number {
  try {
    return statSync(`${file}-wal`).size
  } catch {
    return 0
  }
}
