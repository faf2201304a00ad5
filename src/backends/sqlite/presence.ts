/**
 * Whether a file holds a journal, for an open that must not create one (`mustExist`, the CLI's
 * reads). Opening a file the ordinary way creates it, and the whole botmesh schema in it: a
 * mistyped path, or the path of an application's own database, would come out holding an empty
 * journal that reads as "no dead letters". This looks first, through a read-only connection.
 */
import { existsSync } from 'node:fs'
import { JournalMissingError } from '../../core/errors/errors.js'
import type { DatabaseConstructor } from './driver.js'
import { sqliteFailure } from './failures.js'
import { TABLES } from './schema.js'

/** Tables of someone else's database named at most in the refusal. */
export const TABLES_LISTED_MAX = 10

/** Refuses a file that does not exist or has no `durable` table, naming the tables it has. */
export function assertJournalPresent(Database: DatabaseConstructor, file: string, busyTimeoutMs: number): void {
  if (!existsSync(file)) throw new JournalMissingError(file, 'does not exist, so there is no journal there; check the path')
  let db: InstanceType<DatabaseConstructor>
  try {
    db = new Database(file, { readonly: true, fileMustExist: true, timeout: busyTimeoutMs })
  } catch (error) {
    throw sqliteFailure(error, file, 'looking for the journal', 'journal')
  }
  try {
    const names = (
      db
        .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name LIMIT ?`)
        .all(TABLES_LISTED_MAX + 1) as { name: string }[]
    ).map((row) => row.name)
    const durable = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(TABLES.durable)
    if (durable) return
    const listed =
      names.length === 0 ? 'none' : `${names.slice(0, TABLES_LISTED_MAX).join(', ')}${names.length > TABLES_LISTED_MAX ? ', …' : ''}`
    throw new JournalMissingError(file, `holds no botmesh journal (no "${TABLES.durable}" table; its tables: ${listed}); check the path`)
  } catch (error) {
    throw sqliteFailure(error, file, 'looking for the journal', 'journal')
  } finally {
    db.close()
  }
}
