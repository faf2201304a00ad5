/**
 * The host clock's anchors in a SQLite file (`botmesh_clock`, one row per boot id): the first
 * process of a boot inserts its anchor, every later one reads that row (crash-safe-file/host-clock.ts).
 * The table is created on first use, so a file from before it needs no schema change.
 */
import type BetterSqlite3 from 'better-sqlite3'
import { HOST_CLOCK_LIMITS, type ClockAnchor, type ClockAnchorStore } from '../../crash-safe-file/host-clock.js'
import { TABLES, tableExists } from './schema.js'

const { clock } = TABLES

const CREATE = `CREATE TABLE IF NOT EXISTS ${clock} (boot_id TEXT PRIMARY KEY, anchor_ms INTEGER NOT NULL)`
const READ = `SELECT anchor_ms AS anchorMs FROM ${clock} WHERE boot_id = ?`
const INSERT = `INSERT INTO ${clock} (boot_id, anchor_ms) VALUES (?, ?) ON CONFLICT (boot_id) DO NOTHING`
const PRUNE = `DELETE FROM ${clock} WHERE rowid NOT IN (SELECT rowid FROM ${clock} ORDER BY rowid DESC LIMIT ?)`

/** The anchor store of a SQLite file, over the database its holder opened. */
export function sqliteAnchorStore(database: () => BetterSqlite3.Database): ClockAnchorStore {
  return {
    anchor(proposed: ClockAnchor): ClockAnchor {
      const db = database()
      const read = () => db.prepare(READ).get(proposed.bootId) as { anchorMs: number } | undefined
      // Most opens find their boot's row: no write lock for them.
      const found = tableExists(db, clock) ? read() : undefined
      if (found) return { bootId: proposed.bootId, anchorMs: found.anchorMs }
      // Insert-if-absent and read back under the write lock: two first processes get one anchor.
      const stored = db
        .transaction(() => {
          db.exec(CREATE)
          db.prepare(INSERT).run(proposed.bootId, proposed.anchorMs)
          db.prepare(PRUNE).run(HOST_CLOCK_LIMITS.anchorsKept)
          return read()!
        })
        .immediate()
      return { bootId: proposed.bootId, anchorMs: stored.anchorMs }
    },
  }
}
