import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { SQLiteDurability, SQLiteKv, compactSqlite, verifySqlite } from '../../src/backends/sqlite/index.js'
import { DURABLE_SQL } from '../../src/backends/sqlite/statements.js'
import { INDEXES } from '../../src/backends/sqlite/schema.js'
import type { KvPut } from '../../src/core/durability/journal/kv.js'
import { inboxRecord } from '../../src/testing/conformance/fixtures.js'
import { tempDir } from '../fixtures/sqlite/temp.js'
import { readWal } from '../fixtures/sqlite/wal.js'

const temps: ReturnType<typeof tempDir>[] = []
const opened: { stop(): Promise<void> }[] = []

afterEach(async () => {
  for (const thing of opened.splice(0)) await thing.stop()
  for (const temp of temps.splice(0)) temp.remove()
})

function newFile(): string {
  const temp = tempDir()
  temps.push(temp)
  return temp.file()
}

async function openKv(file: string): Promise<SQLiteKv> {
  const kv = new SQLiteKv({ file })
  opened.push(kv)
  await kv.start()
  return kv
}

function put(key: string, fields: Partial<KvPut> = {}): KvPut {
  return { op: 'put', collection: 'c', key, expectVersion: 0, value: { key }, state: 'pending', stateTime: 1, due: null, ...fields }
}

describe('SQLiteKv writes', () => {
  it('commits concurrent write calls in one transaction, each call with its own results', async () => {
    const file = newFile()
    const kv = await openKv(file)
    await kv.write([put('warm')])
    const before = readWal(file).commits
    const calls = Array.from({ length: 32 }, (_, n) => kv.write([put(`k${n}`), put(n === 5 ? 'warm' : `k${n}b`)]))
    const results = await Promise.all(calls)
    expect(readWal(file).commits - before).toBe(1)
    expect(results[5]!.map((r) => r.ok)).toEqual([true, false])
    expect(results[6]!.map((r) => r.ok)).toEqual([true, true])
    expect(await kv.count('c')).toEqual({ pending: 64 })
  })

  it('a retention batch joins the group commit: one transaction with the writes queued before it, which it sees', async () => {
    const file = newFile()
    const kv = await openKv(file)
    await kv.write([put('old', { state: 'done', stateTime: 1 }), put('kept', { state: 'done', stateTime: 5_000 })])
    const before = readWal(file).commits
    const [, purged] = await Promise.all([kv.write([put('queued', { state: 'done', stateTime: 2 })]), kv.purge('c', 'done', 1_000, 10)])
    // Before, a purge first committed the queue, then ran a transaction of its own: 2 commits.
    expect(readWal(file).commits - before).toBe(1)
    expect(purged).toBe(2)
    expect((await kv.get('c', ['old', 'queued', 'kept'])).map((entry) => entry?.key)).toEqual([undefined, undefined, 'kept'])
  })

  it('a call that fails inside the transaction is rolled back whole; the calls beside it commit', async () => {
    const file = newFile()
    const kv = await openKv(file)
    const raw = new Database(file)
    raw.exec(`CREATE TRIGGER poison BEFORE INSERT ON durable WHEN new.key = 'poison' BEGIN SELECT RAISE(ABORT, 'poisoned key'); END`)
    raw.close()
    await kv.write([put('warm')])
    const before = readWal(file).commits
    const [first, second, third] = await Promise.allSettled([
      kv.write([put('a1'), put('a2')]),
      kv.write([put('b1'), put('poison')]),
      kv.write([put('c1')]),
    ])
    expect(first.status).toBe('fulfilled')
    expect(second).toMatchObject({ status: 'rejected', reason: { message: expect.stringContaining('poisoned key') } })
    expect(third.status).toBe('fulfilled')
    // The batch was redone with a savepoint per call, still as one transaction (batch-commit.ts).
    expect(readWal(file).commits - before).toBe(1)
    expect((await kv.get('c', ['a1', 'a2', 'b1', 'poison', 'c1'])).map((entry) => entry?.key)).toEqual([
      'a1',
      'a2',
      undefined,
      undefined,
      'c1',
    ])
    expect(await kv.count('c')).toEqual({ pending: 4 })
  })

  it('applies operations in call order: a read sees the writes called before it', async () => {
    const kv = await openKv(newFile())
    const write = kv.write([put('k')])
    const [read] = await kv.get('c', ['k'])
    expect(read?.version).toBe(1)
    expect(await write).toEqual([{ ok: true, version: 1 }])
  })

  it('refuses an op no backend can store, before anything is written', async () => {
    const kv = await openKv(newFile())
    await expect(kv.write([put('a'), put('b', { due: Number.NaN })])).rejects.toThrow(RangeError)
    await expect(kv.write([put('a', { stateTime: Number.POSITIVE_INFINITY })])).rejects.toThrow(RangeError)
    await expect(kv.write([put('a', { value: undefined as never })])).rejects.toThrow(RangeError)
    expect(await kv.get('c', ['a'])).toEqual([undefined])
  })

  it('writes waiting for a commit are committed by stop()', async () => {
    const file = newFile()
    const kv = new SQLiteKv({ file })
    await kv.start()
    const pending = kv.write([put('late')])
    await kv.stop()
    expect(await pending).toEqual([{ ok: true, version: 1 }])
    const again = await openKv(file)
    expect((await again.get('c', ['late']))[0]?.version).toBe(1)
  })

  it('lists the scopes that hold entries', async () => {
    const kv = await openKv(newFile())
    await kv.scope('b').write([put('x')])
    await kv.scope('a').write([put('x')])
    await kv.scope('gone').write([put('x')])
    await kv.scope('gone').write([{ op: 'delete', collection: 'c', key: 'x', expectVersion: 1 }])
    expect(await kv.scopes()).toEqual(['a', 'b'])
  })
})

describe('SQLiteDurability on disk', () => {
  it('keeps journal records across close and reopen', async () => {
    const file = newFile()
    const first = new SQLiteDurability({ file })
    await first.start()
    const record = inboxRecord('m1', { state: 'failed', nextAttemptAt: 5_000 })
    await first.journal('s').write('inbox.admit', [{ kind: 'inbox', record, expectVersion: 0 }])
    await first.journal('s').write('inbox.claim', [{ kind: 'inbox', record: { ...record, attempts: 1 }, expectVersion: 1 }])
    await first.stop()
    await first.stop()

    const second = new SQLiteDurability({ file })
    await second.start()
    opened.push(second)
    const j = second.journal('s')
    expect(await j.read('inbox', ['m1'])).toEqual([{ record: { ...record, attempts: 1 }, version: 2 }])
    expect((await j.due('inbox', 5_000, 10)).map((r) => r.record.id)).toEqual(['m1'])
    expect(await j.count('inbox')).toEqual({ failed: 1 })
    expect(await second.scopes()).toEqual(['s'])
  })

  it('serves count, list, due, get and purge from indexes, never a scan of durable', async () => {
    const file = newFile()
    const kv = await openKv(file)
    await kv.write([put('x')])
    const db = new Database(file, { readonly: true })
    const plan = (sql: string) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...new Array(sql.split('?').length - 1).fill(1)) as { detail: string }[])
        .map((r) => r.detail)
        .join(' | ')
    try {
      expect(plan(DURABLE_SQL.count)).toMatch(/SEARCH durable_counts USING PRIMARY KEY/)
      expect(plan(DURABLE_SQL.listFirst)).toMatch(
        new RegExp(
          `SEARCH durable USING INDEX ${INDEXES.durableStateTime} \\(scope=\\? AND collection=\\? AND state=\\? AND state_time<\\?\\)`,
        ),
      )
      expect(plan(DURABLE_SQL.listAfter)).toMatch(
        new RegExp(
          `SEARCH durable USING INDEX ${INDEXES.durableStateTime} \\(scope=\\? AND collection=\\? AND state=\\? AND \\(state_time,key\\)>\\(\\?,\\?\\)`,
        ),
      )
      expect(plan(DURABLE_SQL.due)).toMatch(
        new RegExp(`SEARCH durable USING INDEX ${INDEXES.durableDue} \\(scope=\\? AND collection=\\? AND due<\\?\\)`),
      )
      expect(plan(DURABLE_SQL.get)).toMatch(
        /SEARCH durable USING INDEX sqlite_autoindex_durable_1 \(scope=\? AND collection=\? AND key=\?\)/,
      )
      expect(plan(DURABLE_SQL.purge)).toMatch(new RegExp(`SEARCH durable USING COVERING INDEX ${INDEXES.durableStateTime}`))
      for (const sql of Object.values(DURABLE_SQL)) expect(plan(sql), sql).not.toMatch(/SCAN durable\b(?!_counts)|TEMP B-TREE/)
      expect(plan(DURABLE_SQL.scopes)).toMatch(/durable_counts/)
    } finally {
      db.close()
    }
  })
})

describe('verify and compact', () => {
  it('a file botmesh set up verifies clean; compact truncates the WAL', async () => {
    const file = newFile()
    const durability = new SQLiteDurability({ file })
    await durability.start()
    opened.push(durability)
    await durability.journal('s').write('inbox.admit', [{ kind: 'inbox', record: inboxRecord('m1'), expectVersion: 0 }])
    expect(await durability.verify()).toEqual({ file, ok: true, problems: [], entries: 1, schemaVersion: 1, journalMode: 'wal' })
    expect(await verifySqlite(file)).toMatchObject({ ok: true, entries: 1 })
    const report = await durability.compact()
    expect(report).toMatchObject({ file, complete: true, walBytesAfter: 0 })
    expect(report.walBytesBefore).toBeGreaterThan(0)
    expect(report.checkpointedFrames).toBe(report.walFrames)
    await durability.journal('s').write('inbox.admit', [{ kind: 'inbox', record: inboxRecord('m2'), expectVersion: 0 }])
    expect(await compactSqlite(file)).toMatchObject({ complete: true, walBytesAfter: 0 })
    expect(await durability.journal('s').count('inbox')).toEqual({ pending: 2 })
  })

  it('reports counts that disagree with the rows, a wrong shape and a missing table', async () => {
    const file = newFile()
    const kv = await openKv(file)
    await kv.write([put('a'), put('b')])
    const raw = new Database(file)
    raw.exec(`UPDATE durable_counts SET n = 5 WHERE state = 'pending'`)
    expect((await verifySqlite(file)).problems).toEqual([`durable_counts says 5 entries for ["","c","pending"], the table holds 2`])
    raw.exec('DROP INDEX durable_due')
    raw.exec('DROP TRIGGER durable_count_update')
    const broken = await verifySqlite(file)
    expect(broken.ok).toBe(false)
    expect(broken.problems).toEqual(
      expect.arrayContaining(['the index durable_due is missing', 'the trigger durable_count_update that keeps durable_counts is missing']),
    )
    raw.exec('DROP TABLE durable')
    expect((await verifySqlite(file)).problems).toEqual(['the durable table is missing'])
    raw.close()
  })

  it('reports a missing file or junk without creating or changing anything', async () => {
    const file = newFile()
    expect(await verifySqlite(file)).toMatchObject({ ok: false, problems: [`${file} does not exist`] })
    expect(existsSync(file)).toBe(false)
    writeFileSync(file, 'not a database at all '.repeat(200))
    const junk = await verifySqlite(file)
    expect(junk.ok).toBe(false)
    expect(junk.problems[0]).toMatch(/cannot be read as a SQLite database.*SQLITE_NOTADB/)
  })
})

describe('opening a file botmesh cannot use', () => {
  it('refuses junk with JOURNAL_CORRUPT naming the file', async () => {
    const file = newFile()
    writeFileSync(file, Buffer.alloc(8192, 7))
    await expect(new SQLiteDurability({ file }).start()).rejects.toMatchObject({
      code: 'JOURNAL_CORRUPT',
      file,
      message: expect.stringContaining(file),
    })
  })

  it('refuses a durable table of another shape with SCHEMA_MISMATCH', async () => {
    const file = newFile()
    const raw = new Database(file)
    raw.exec('CREATE TABLE durable (id INTEGER PRIMARY KEY, payload TEXT)')
    raw.close()
    await expect(new SQLiteDurability({ file }).start()).rejects.toMatchObject({
      code: 'SCHEMA_MISMATCH',
      message: expect.stringContaining('durable'),
    })
  })

  it('refuses a file written by a newer botmesh with SCHEMA_TOO_NEW', async () => {
    const file = newFile()
    const kv = new SQLiteKv({ file })
    await kv.start()
    await kv.stop()
    const raw = new Database(file)
    raw.exec(`UPDATE botmesh_schema SET version = 99`)
    raw.close()
    await expect(new SQLiteKv({ file }).start()).rejects.toMatchObject({ code: 'SCHEMA_TOO_NEW' })
  })

  it('refuses a directory with CONFIG_INVALID', async () => {
    const file = newFile()
    mkdirSync(file)
    await expect(new SQLiteDurability({ file }).start()).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringContaining(file),
    })
  })
})
