/**
 * Real processes on one SQLite file: two children working the same journal at once, a child
 * killed with SIGKILL inside a write transaction, and a process without the driver installed.
 */
import { existsSync } from 'node:fs'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { SQLiteStore, SQLiteKv, verifySqlite } from '../../src/backends/sqlite/index.js'
import type { InboxRecord } from '../../src/core/durability/journal/records.js'
import { runChild, type Child } from '../fixtures/sqlite/child.js'
import { tempDir } from '../fixtures/sqlite/temp.js'

const temps: ReturnType<typeof tempDir>[] = []
const children: Child[] = []

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill('SIGKILL')
    await child.exited
  }
  for (const temp of temps.splice(0)) temp.remove()
})

function newFile(): string {
  const temp = tempDir()
  temps.push(temp)
  return temp.file()
}

function start(script: string, args: readonly string[], imports?: readonly string[]): Child {
  const child = runChild(`./test/fixtures/sqlite/${script}`, args, { imports })
  children.push(child)
  return child
}

/** A small deterministic generator (mulberry32), so a failing run can be repeated from its seed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32
  }
}

describe('two processes on one journal', () => {
  it('lose no update and surface no SQLITE_BUSY', { timeout: 60_000 }, async () => {
    const file = newFile()
    const increments = 150
    const counters = 3
    const a = start('counter-child.ts', [file, 'A', String(increments), String(counters), 'store-first'])
    const b = start('counter-child.ts', [file, 'B', String(increments), String(counters), 'journal-first'])
    await Promise.all([a.waitForLine((l) => l === 'ready'), b.waitForLine((l) => l === 'ready')])
    a.process.stdin.write('go\n')
    b.process.stdin.write('go\n')
    const exits = await Promise.all([a.exited, b.exited])
    const reports = [a, b].map(
      (child) =>
        JSON.parse(child.lines.at(-1)!) as { name: string; conflicts: number; startedAt: number; finishedAt: number; error?: string },
    )
    expect(
      reports.filter((r) => r.error),
      JSON.stringify(reports),
    ).toEqual([])
    expect(exits).toEqual([
      { code: 0, signal: null },
      { code: 0, signal: null },
    ])
    // The two really ran at the same time.
    const [ra, rb] = reports as [(typeof reports)[0], (typeof reports)[0]]
    expect(ra.startedAt < rb.finishedAt && rb.startedAt < ra.finishedAt).toBe(true)

    const store = new SQLiteStore({ file })
    const durability = store.durability()
    await store.start()
    await durability.start()
    try {
      const journal = durability.journal('shared')
      const shared = await journal.read(
        'inbox',
        Array.from({ length: counters }, (_, n) => `counter-${n}`),
      )
      const sum = shared.reduce((total, entry) => total + entry!.record.attempts, 0)
      expect(sum).toBe(2 * increments)
      for (const entry of shared) expect(entry!.version).toBe(entry!.record.attempts)
      const own = await journal.read(
        'inbox',
        ['A', 'B'].flatMap((name) => Array.from({ length: increments }, (_, i) => `${name}-${i}`)),
      )
      expect(own.filter((entry) => entry === undefined)).toHaveLength(0)
      expect(own.every((entry) => entry!.record.chatId === (entry!.record as InboxRecord).id.split('-')[0])).toBe(true)
      expect(await journal.count('inbox')).toEqual({ pending: 2 * increments + counters })
      expect(await store.listLog('shared', 'A', 1_000)).toHaveLength(Math.ceil(increments / 10))
      expect(await store.listLog('shared', 'B', 1_000)).toHaveLength(Math.ceil(increments / 10))
      expect(await durability.verify()).toMatchObject({ ok: true, problems: [] })
      console.log(`two processes: ${2 * increments} increments, ${ra.conflicts + rb.conflicts} CAS conflicts retried, none lost`)
    } finally {
      await durability.stop()
      await store.stop()
    }
  })
})

describe('a process killed with SIGKILL inside a write transaction', () => {
  it('leaves a readable file holding exactly the committed transactions', { timeout: 60_000 }, async () => {
    const opsPerBatch = 1_000
    const random = seeded(20_240_611)
    for (let round = 0; round < 3; round++) {
      const file = newFile()
      const killAfter = 1 + Math.floor(random() * 3)
      await holdTransactionOpen(file, `b${killAfter + 1}-${opsPerBatch - 1}`)
      const writer = start('writer-child.ts', [file, String(opsPerBatch), '4000'])
      await writer.waitForLine((line) => line === `committed ${killAfter}`)
      // The child is the only writer: once its write lock is held, it is inside batch killAfter + 1,
      // which stays open until the kill however fast the machine.
      await waitForWriteLock(file)
      await new Promise((resolve) => setTimeout(resolve, random() * 100))
      writer.process.kill('SIGKILL')
      expect(await writer.exited).toEqual({ code: null, signal: 'SIGKILL' })
      expect(writer.lines.at(-1)).toBe(`committed ${killAfter}`)

      expect(await verifySqlite(file)).toMatchObject({ ok: true, problems: [] })
      const kv = new SQLiteKv({ file })
      await kv.start()
      try {
        // Exactly the acknowledged batches, each whole; nothing of the one the kill interrupted.
        const batches = Object.fromEntries(Array.from({ length: killAfter + 1 }, (_, b) => [`batch-${b}`, opsPerBatch]))
        expect(await kv.count('writes')).toEqual({ progress: 1, ...batches })
        const [progress] = await kv.get('writes', ['progress'])
        expect(progress).toMatchObject({ version: killAfter + 1, value: { batch: killAfter } })
        // And the file takes new writes.
        const next = {
          op: 'put',
          collection: 'writes',
          key: 'progress',
          expectVersion: killAfter + 1,
          value: { batch: -1 },
          state: 'after',
          stateTime: 0,
          due: null,
        } as const
        expect(await kv.write([next])).toEqual([{ ok: true, version: killAfter + 2 }])
      } finally {
        await kv.stop()
      }
    }
  })
})

/**
 * Sets the file up and adds a trigger that keeps one batch's transaction open after its last row
 * (`lastKey`) far longer than the test waits before the kill (a computation in SQL that runs for
 * seconds; the kill ends it): a short hold let a fast machine commit the batch before the kill.
 * The batches before it commit at full speed.
 */
async function holdTransactionOpen(file: string, lastKey: string): Promise<void> {
  const kv = new SQLiteKv({ file })
  await kv.start()
  await kv.stop()
  const setup = new Database(file)
  try {
    setup.exec(`CREATE TRIGGER hold_transaction_open AFTER INSERT ON durable WHEN new.key = '${lastKey}' BEGIN
      SELECT count(*) FROM (WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 200000000) SELECT n FROM r);
    END`)
  } finally {
    setup.close()
  }
}

/** Resolves once another connection holds the file's write lock (a write transaction is open). */
async function waitForWriteLock(file: string, timeoutMs = 20_000): Promise<void> {
  const probe = new Database(file, { timeout: 0 })
  try {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      try {
        probe.exec('BEGIN IMMEDIATE')
        probe.exec('ROLLBACK')
      } catch (error) {
        if ((error as { code?: string }).code === 'SQLITE_BUSY') return
        throw error
      }
      if (Date.now() > deadline) throw new Error(`no write transaction seen within ${timeoutMs} ms`)
      await new Promise((resolve) => setTimeout(resolve, 1))
    }
  } finally {
    probe.close()
  }
}

describe('without better-sqlite3 installed', () => {
  it('the package imports, and opening says what to install, creating nothing', async () => {
    const file = newFile()
    const child = start('missing-driver-child.ts', [file], ['./test/fixtures/sqlite/hide-driver.mjs'])
    expect(await child.exited).toEqual({ code: 0, signal: null })
    const outcome = JSON.parse(child.lines.at(-1)!) as Record<string, { code?: string; message?: string }>
    expect(outcome).toMatchObject({
      imported: true,
      store: { code: 'DRIVER_MISSING', message: expect.stringContaining('npm install better-sqlite3') },
      durability: { code: 'DRIVER_MISSING', message: expect.stringContaining('npm install better-sqlite3') },
    })
    expect(existsSync(file)).toBe(false)
  })
})
