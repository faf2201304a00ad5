/**
 * SQLite's raw ceiling (`npm run bench`, measure.ts): a message's five writes in one transaction,
 * with the driver and the settings botmesh's SQLite journal uses, in a temp dir beside the journal.
 */
import { join } from 'node:path'
import type BetterSqlite3 from 'better-sqlite3'
import { loadDriver } from '../../src/core/platform/driver.js'
import { ceilingFigures, inCeilingDir, timed, type CeilingFigures } from './timed.js'

/** A message's five writes in one transaction, WAL, synchronous FULL (botmesh's SQLite settings). */
export function sqliteFiveWrites(parent: string, operations: number, body: string): Promise<CeilingFigures> {
  return inCeilingDir(parent, async (dir) => {
    const { default: Database } = (await loadDriver({
      packageName: 'better-sqlite3',
      neededBy: 'the SQLite ceiling',
      load: () => import('better-sqlite3'),
    })) as unknown as { default: typeof BetterSqlite3 }
    const db = new Database(join(dir, 'ceiling.db'))
    try {
      db.pragma('journal_mode = WAL')
      db.pragma('synchronous = FULL')
      db.exec(
        'CREATE TABLE records (kind TEXT NOT NULL, id TEXT NOT NULL, state TEXT NOT NULL, version INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (kind, id))',
      )
      const insert = db.prepare('INSERT INTO records (kind, id, state, version, body) VALUES (?, ?, ?, 1, ?)')
      const update = db.prepare('UPDATE records SET state = ?, version = version + 1, body = ? WHERE kind = ? AND id = ? AND version = ?')
      const message = db.transaction((id: string) => {
        insert.run('inbox', id, 'received', body) // admit
        update.run('processing', body, 'inbox', id, 1) // claim
        insert.run('outbox', id, 'pending', body) // journal the reply
        update.run('sent', body, 'outbox', id, 1) // sent
        update.run('done', body, 'inbox', id, 2) // complete
      })
      const seconds = await timed(operations, 1, (n) => void message(`m${n}`))
      return ceilingFigures('five writes a message in one transaction (WAL, synchronous FULL)', 'message', operations, 1, seconds)
    } finally {
      db.close()
    }
  })
}
