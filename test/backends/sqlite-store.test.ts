import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { SQLiteDurability, SQLiteStore } from '../../src/backends/sqlite/index.js'
import type { MessageLogEntry } from '../../src/core/store/store.js'
import { inboxRecord, outboxRecord } from '../../src/testing/conformance/fixtures.js'
import { DURABLE_SQL, STORE_SQL } from '../../src/backends/sqlite/statements.js'
import { MESSAGE_LOG_LIMITS } from '../../src/core/store/message-log-trims.js'
import { TABLES } from '../../src/backends/sqlite/schema.js'
import { tempDir } from '../fixtures/sqlite/temp.js'
import { readWal } from '../fixtures/sqlite/wal.js'

const temps: ReturnType<typeof tempDir>[] = []
const opened: { stop(): Promise<void> }[] = []

afterEach(async () => {
  for (const thing of opened.splice(0)) await thing.stop()
  for (const temp of temps.splice(0)) temp.remove()
})

function newFile(name?: string): string {
  const temp = tempDir()
  temps.push(temp)
  return temp.file(name)
}

async function openStore(file: string, options: { messageLogMax?: number } = {}): Promise<SQLiteStore> {
  const store = new SQLiteStore({ file, ...options })
  opened.push(store)
  await store.start()
  return store
}

function line(chatId: string, n: number, fields: Partial<MessageLogEntry> = {}): MessageLogEntry {
  return {
    direction: n % 2 ? 'out' : 'in',
    chatId,
    messageId: `m${n}`,
    text: `text ${n}`,
    at: 1_000 + n,
    ref: n % 2 ? `key:${n}` : null,
    ...fields,
  }
}

describe('SQLiteStore', () => {
  it('keeps user data per chat and key, round-tripping JSON', async () => {
    const store = await openStore(newFile())
    expect(await store.getUser('s', 'chat', 'name')).toBeUndefined()
    const profile = { name: 'Zoë 👋', tags: ['a', 'b'], age: 42, nested: { ok: true, none: null } }
    await store.setUser('s', 'chat', 'profile', profile)
    await store.setUser('s', 'chat', 'count', 1)
    await store.setUser('s', 'chat', 'count', 2)
    await store.setUser('s', 'other', 'count', 9)
    await store.setUser('s', 'chat', 'empty', '')
    expect(await store.getUser('s', 'chat', 'profile')).toEqual(profile)
    expect(await store.getUser('s', 'chat', 'count')).toBe(2)
    expect(await store.getUser('s', 'other', 'count')).toBe(9)
    expect(await store.getUser('s', 'chat', 'empty')).toBe('')
  })

  it('keeps, replaces and deletes a flow checkpoint', async () => {
    const store = await openStore(newFile())
    expect(await store.getCheckpoint('s', 'chat')).toBeUndefined()
    await store.setCheckpoint('s', 'chat', { flow: 'signup', step: 1, state: { name: 'Ann' } })
    await store.setCheckpoint('s', 'chat', { flow: 'signup', step: 2, state: { name: 'Ann' } })
    expect(await store.getCheckpoint('s', 'chat')).toEqual({ flow: 'signup', step: 2, state: { name: 'Ann' } })
    await store.deleteCheckpoint('s', 'chat')
    await store.deleteCheckpoint('s', 'chat')
    expect(await store.getCheckpoint('s', 'chat')).toBeUndefined()
  })

  it('lists the latest message log lines oldest first and trims a chat to messageLogMax', async () => {
    const store = await openStore(newFile(), { messageLogMax: 5 })
    for (let n = 1; n <= 8; n++) await store.appendLog('s', line('chat', n))
    await store.appendLog('s', line('other', 100))
    expect(await store.listLog('s', 'chat', 3)).toEqual([line('chat', 6), line('chat', 7), line('chat', 8)])
    expect((await store.listLog('s', 'chat', 100)).map((entry) => entry.messageId)).toEqual(['m4', 'm5', 'm6', 'm7', 'm8'])
    expect(await store.listLog('s', 'other', 10)).toEqual([line('other', 100)])
    expect(await store.listLog('s', 'nobody', 10)).toEqual([])
  })

  it('trims a chat’s log on the first append a store sees and then every MESSAGE_LOG_LIMITS.trimEvery: at most messageLogMax + trimEvery - 1 lines in the file, messageLogMax listed', async () => {
    const file = newFile()
    const every = MESSAGE_LOG_LIMITS.trimEvery
    const linesInFile = () => {
      const raw = new Database(file, { readonly: true })
      try {
        return (raw.prepare(`SELECT count(*) AS n FROM ${TABLES.messageLog} WHERE chat_id = 'chat'`).get() as { n: number }).n
      } finally {
        raw.close()
      }
    }
    const store = await openStore(file, { messageLogMax: 5 })
    let most = 0
    for (let n = 1; n <= 3 * every; n++) {
      await store.appendLog('s', line('chat', n))
      most = Math.max(most, linesInFile())
    }
    expect(most).toBe(5 + every - 1)
    const newest = Array.from({ length: 5 }, (_, n) => `m${3 * every - 4 + n}`)
    expect((await store.listLog('s', 'chat', 1_000)).map((entry) => entry.messageId)).toEqual(newest)
    await store.stop()
    // A store that knows nothing of the chat yet (a restart) trims it on its first append.
    const again = await openStore(file, { messageLogMax: 5 })
    await again.appendLog('s', line('chat', 3 * every + 1))
    expect(linesInFile()).toBe(5)
  })

  it('keeps every log line with messageLogMax 0', async () => {
    const store = await openStore(newFile(), { messageLogMax: 0 })
    for (let n = 1; n <= 30; n++) await store.appendLog('s', line('chat', n, { messageId: null, text: null, ref: null }))
    const all = await store.listLog('s', 'chat', 1_000)
    expect(all).toHaveLength(30)
    expect(all[0]).toEqual(line('chat', 1, { messageId: null, text: null, ref: null }))
  })

  it('keeps scopes apart: the same chat and key in two scopes are two values', async () => {
    const store = await openStore(newFile())
    await store.setUser('bot-a', 'chat', 'k', 'A')
    await store.setUser('bot-b', 'chat', 'k', 'B')
    await store.setCheckpoint('bot-a', 'chat', { step: 'A' })
    await store.appendLog('bot-a', line('chat', 1))
    expect(await store.getUser('bot-a', 'chat', 'k')).toBe('A')
    expect(await store.getUser('bot-b', 'chat', 'k')).toBe('B')
    expect(await store.getCheckpoint('bot-b', 'chat')).toBeUndefined()
    expect(await store.listLog('bot-b', 'chat', 10)).toEqual([])
    await store.deleteCheckpoint('bot-b', 'chat')
    expect(await store.getCheckpoint('bot-a', 'chat')).toEqual({ step: 'A' })
  })

  it('keeps everything across a reopen of the file', async () => {
    const file = newFile()
    const first = new SQLiteStore({ file })
    await first.start()
    await first.setUser('s', 'chat', 'k', { v: 1 })
    await first.setCheckpoint('s', 'chat', { step: 3 })
    await first.appendLog('s', line('chat', 1))
    const journal = first.durability()
    await journal.start()
    await journal.journal('s').write('inbox.admit', [{ kind: 'inbox', record: inboxRecord('m1'), expectVersion: 0 }])
    await journal.stop()
    await first.stop()

    const second = await openStore(file)
    expect(await second.getUser('s', 'chat', 'k')).toEqual({ v: 1 })
    expect(await second.getCheckpoint('s', 'chat')).toEqual({ step: 3 })
    expect(await second.listLog('s', 'chat', 10)).toEqual([line('chat', 1)])
    const again = second.durability()
    await again.start()
    opened.push(again)
    expect((await again.journal('s').read('inbox', ['m1']))[0]).toEqual({ record: inboxRecord('m1'), version: 1 })
  })

  it('refuses calls before start and after stop with NOT_STARTED', async () => {
    const store = new SQLiteStore({ file: newFile() })
    await expect(store.getUser('s', 'c', 'k')).rejects.toMatchObject({ code: 'NOT_STARTED' })
    await store.start()
    await store.setUser('s', 'c', 'k', 1)
    await store.stop()
    await store.stop()
    await expect(store.setUser('s', 'c', 'k', 2)).rejects.toMatchObject({ code: 'NOT_STARTED' })
  })

  it('creates the missing directory and files readable by their owner only', async () => {
    const file = join(newFile(), '..', 'nested', 'deeper', 'bot.db')
    const store = await openStore(file)
    await store.setUser('s', 'c', 'k', 'secret')
    const durability = store.durability()
    await durability.start()
    opened.push(durability)
    await durability.journal('s').write('inbox.admit', [{ kind: 'inbox', record: inboxRecord('m1'), expectVersion: 0 }])
    for (const path of [file, `${file}-wal`, `${file}-shm`]) {
      expect(existsSync(path), path).toBe(true)
      expect((statSync(path).mode & 0o777).toString(8), path).toBe('600')
    }
    expect((statSync(join(file, '..')).mode & 0o077).toString(8)).toBe('0')
  })

  it('rejects bad options with CONFIG_INVALID', () => {
    expect(() => new SQLiteStore({ file: '' })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }))
    expect(() => new SQLiteStore({ file: 'x.db', messageLogMax: -1 })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }))
    expect(() => new SQLiteDurability({ file: 'x.db', busyTimeoutMs: 1.5 })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }))
  })
})

describe('SQLiteStore and its durability on one connection', () => {
  it('hands out one durability; stopping the two in any order, twice, is safe', async () => {
    for (const order of [
      ['store', 'journal'],
      ['journal', 'store'],
    ] as const) {
      const store = new SQLiteStore({ file: newFile() })
      const durability = store.durability()
      expect(store.durability()).toBe(durability)
      expect(durability.kind).toBe('sqlite')
      expect(durability.shared).toBe(true)
      await durability.start()
      await store.start()
      const journal = durability.journal('s')
      const stopFirst = order[0] === 'store' ? store : durability
      await stopFirst.stop()
      await stopFirst.stop()
      // The other one keeps working on the shared connection.
      if (order[0] === 'store') {
        expect((await journal.write('inbox.admit', [{ kind: 'inbox', record: inboxRecord('m'), expectVersion: 0 }]))[0]!.ok).toBe(true)
        await expect(store.getUser('s', 'c', 'k')).rejects.toMatchObject({ code: 'NOT_STARTED' })
      } else {
        await store.setUser('s', 'c', 'k', 1)
        await expect(journal.count('inbox')).rejects.toMatchObject({ code: 'NOT_STARTED' })
      }
      const stopSecond = order[0] === 'store' ? durability : store
      await stopSecond.stop()
      await stopSecond.stop()
      await expect(journal.count('inbox')).rejects.toMatchObject({ code: 'NOT_STARTED' })
      await expect(store.getUser('s', 'c', 'k')).rejects.toMatchObject({ code: 'NOT_STARTED' })
      // And both start again.
      await store.start()
      await durability.start()
      expect(await journal.count('inbox')).toEqual(order[0] === 'store' ? { pending: 1 } : {})
      await durability.stop()
      await store.stop()
    }
  })

  it('the store statements name only store tables, the journal statements only journal tables', () => {
    // A table-valued function (json_each of a search's patterns) is no table.
    const tables = (sql: string) =>
      new Set([...sql.matchAll(/\b(?:FROM|INTO|(?<!DO\s)UPDATE|JOIN)\s+(\w+)\b(?!\s*\()/gi)].map((match) => match[1]!))
    for (const sql of Object.values(STORE_SQL)) for (const table of tables(sql)) expect(table, sql).toMatch(/^store_/)
    for (const sql of Object.values(DURABLE_SQL))
      for (const table of tables(sql)) expect(['durable', 'durable_counts'], sql).toContain(table)
  })

  it('the store never writes the journal tables and the journals never write the store tables', async () => {
    const file = newFile()
    const store = await openStore(file)
    const durability = store.durability()
    await durability.start()
    opened.push(durability)
    // An audit of every write, installed from a second connection: SQLite fires triggers for all writers.
    const audit = new Database(file)
    try {
      audit.exec('CREATE TABLE write_audit (tbl TEXT NOT NULL)')
      for (const table of ['durable', 'durable_counts', 'store_users', 'store_checkpoints', 'store_message_log', 'botmesh_schema']) {
        for (const verb of ['INSERT', 'UPDATE', 'DELETE']) {
          audit.exec(
            `CREATE TRIGGER audit_${table}_${verb} AFTER ${verb} ON ${table} BEGIN INSERT INTO write_audit VALUES ('${table}'); END`,
          )
        }
      }
      const written = () => new Set((audit.prepare('SELECT tbl FROM write_audit').all() as { tbl: string }[]).map((row) => row.tbl))
      const j = durability.journal('s')

      await store.setUser('s', 'chat', 'k', 1)
      await store.setCheckpoint('s', 'chat', { step: 1 })
      await store.deleteCheckpoint('s', 'chat')
      await store.appendLog('s', line('chat', 1))
      expect(written()).toEqual(new Set(['store_users', 'store_checkpoints', 'store_message_log']))

      audit.exec('DELETE FROM write_audit')
      await j.write('inbox.admit', [{ kind: 'inbox', record: inboxRecord('m1'), expectVersion: 0 }])
      await j.write('inbox.claim', [{ kind: 'inbox', record: inboxRecord('m1', { state: 'processing' }), expectVersion: 1 }])
      await j.write('outbox.journal', [{ kind: 'outbox', record: outboxRecord('k1', { state: 'sent' }), expectVersion: 0 }])
      await j.purge('outbox', 'sent', 1e13, 10)
      await j.write('operator.discard', [{ kind: 'inbox', delete: 'm1', expectVersion: 2 }])
      await durability.compact()
      await durability.verify()
      expect(written()).toEqual(new Set(['durable', 'durable_counts']))
    } finally {
      audit.close()
    }
  })
})

describe('SQLiteStore writes in the connection group commit', () => {
  it('the store writes and the journal writes of one turn commit in one transaction (one fsync)', async () => {
    const file = newFile()
    const store = await openStore(file)
    const durability = store.durability()
    await durability.start()
    opened.push(durability)
    const journal = durability.journal('s')
    await store.setUser('s', 'warm', 'k', 0)
    const before = readWal(file).commits
    await Promise.all([
      journal.write('inbox.admit', [{ kind: 'inbox', record: inboxRecord('m1'), expectVersion: 0 }]),
      store.appendLog('s', line('chat', 0)),
      store.setCheckpoint('s', 'chat', { step: 1 }),
      store.setUser('s', 'chat', 'name', 'Ada'),
      journal.write('outbox.journal', [{ kind: 'outbox', record: outboxRecord('k1'), expectVersion: 0 }]),
      store.appendLog('s', line('chat', 1)),
    ])
    // Before the shared group commit each store write was a transaction of its own: 5 commits.
    expect(readWal(file).commits - before).toBe(1)
    expect(await store.getCheckpoint('s', 'chat')).toEqual({ step: 1 })
    expect(await store.getUser('s', 'chat', 'name')).toBe('Ada')
    expect((await store.listLog('s', 'chat', 10)).map((entry) => entry.messageId)).toEqual(['m0', 'm1'])
    expect(await journal.count('inbox')).toEqual({ pending: 1 })
  })

  it('a read sees the writes of what it reads queued before it, and does not wait for the others', async () => {
    const store = await openStore(newFile())
    await store.setCheckpoint('s', 'a', { step: 1 })
    const order: string[] = []
    const writeA = store.setCheckpoint('s', 'a', { step: 2 }).then(() => order.push('write a'))
    const readB = store.getCheckpoint('s', 'b').then(() => order.push('read b'))
    const readA = store.getCheckpoint('s', 'a').then((value) => {
      order.push('read a')
      return value
    })
    const logA = store.appendLog('s', line('a', 0))
    const listed = store.listLog('s', 'a', 10)
    store.deleteCheckpoint('s', 'gone').catch(() => {})
    const gone = store.getCheckpoint('s', 'gone')
    await Promise.all([writeA, readB, logA])
    // Chat b's checkpoint has nothing queued: read at once, before chat a's write commits.
    expect(order.slice(0, 2)).toEqual(['read b', 'write a'])
    expect(await readA).toEqual({ step: 2 })
    expect((await listed).map((entry) => entry.messageId)).toEqual(['m0'])
    expect(await gone).toBeUndefined()
  })

  it('a write queued when the store stops is committed before the file closes', async () => {
    const file = newFile()
    const store = new SQLiteStore({ file })
    await store.start()
    const written = store.setUser('s', 'chat', 'k', 'kept')
    await store.stop()
    await written
    const raw = new Database(file, { readonly: true })
    try {
      expect(raw.prepare('SELECT value FROM store_users WHERE chat_id = ?').get('chat')).toEqual({ value: '"kept"' })
    } finally {
      raw.close()
    }
  })

  it('a store write that fails inside the batch fails alone; the journal write beside it commits', async () => {
    const file = newFile()
    const store = await openStore(file)
    const durability = store.durability()
    await durability.start()
    opened.push(durability)
    const raw = new Database(file)
    raw.exec(`CREATE TRIGGER poison BEFORE INSERT ON store_users WHEN new.key = 'poison' BEGIN SELECT RAISE(ABORT, 'poisoned key'); END`)
    raw.close()
    const journal = durability.journal('s')
    const [admitted, poisoned, kept] = await Promise.allSettled([
      journal.write('inbox.admit', [{ kind: 'inbox', record: inboxRecord('m1'), expectVersion: 0 }]),
      store.setUser('s', 'chat', 'poison', 1),
      store.setUser('s', 'chat', 'kept', 2),
    ])
    expect(admitted.status).toBe('fulfilled')
    expect(poisoned).toMatchObject({ status: 'rejected', reason: { message: 'poisoned key' } })
    expect(kept.status).toBe('fulfilled')
    expect(await store.getUser('s', 'chat', 'poison')).toBeUndefined()
    expect(await store.getUser('s', 'chat', 'kept')).toBe(2)
    expect(await journal.count('inbox')).toEqual({ pending: 1 })
  })
})
