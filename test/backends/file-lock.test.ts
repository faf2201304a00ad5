/**
 * The pid lock with real processes: a second live process is refused with the holder's pid, a
 * dead holder's lock is taken over, a second open in one process is refused until close(), and a
 * read-only open refuses writes naming the holder.
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { FileDurability } from '../../src/backends/file/index.js'
import { JournalClosedError, JournalLockedError, JournalReadOnlyError } from '../../src/core/errors/errors.js'
import { startJournalChild } from './file-child.js'
import { inboxInsert as put } from '../../test-utils/kv-ops.js'

const dirs: string[] = []
async function journalPath(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'botmesh-lock-'))
  dirs.push(dir)
  return join(dir, 'data', 'durable.json')
}
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })))
})

/** The pid of a process that has exited. */
function deadPid(): number {
  const result = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'])
  return Number(result.stdout.toString())
}

describe('FileDurability lock', () => {
  it('refuses a second live process with the holder pid, in both directions', async () => {
    const path = await journalPath()
    const mine = await FileDurability.open(path)
    const child = startJournalChild('hold', path)
    const refused = JSON.parse(await child.waitForLine((line) => line.includes('refused')))
    assert.equal(refused.code, 'JOURNAL_LOCKED')
    assert.equal(refused.pid, process.pid)
    assert.match(refused.message, new RegExp(`locked by process ${process.pid}`))
    await child.exited
    await mine.close()

    const holder = startJournalChild('hold', path)
    await holder.waitForLine((line) => line.includes('opened'))
    const error = await FileDurability.open(path).catch((e: unknown) => e)
    assert.ok(error instanceof JournalLockedError)
    assert.equal(error.pid, holder.process.pid)
    holder.process.stdin!.write('close\n')
    await holder.waitForLine((line) => line.includes('closed'))
    await holder.exited
    const after = await FileDurability.open(path)
    assert.equal((await after.kv.get('inbox', [`from-${holder.process.pid}`]))[0]?.version, 1)
    await after.close()
  })

  it('takes over the lock of a process killed with SIGKILL, and keeps what it wrote', async () => {
    const path = await journalPath()
    const child = startJournalChild('hold', path, { appendLog: true })
    await child.waitForLine((line) => line.includes('opened'))
    child.process.kill('SIGKILL')
    await child.exited
    assert.equal(JSON.parse(await readFile(`${path}.lock`, 'utf8')).pid, child.process.pid, 'the dead process left its lock')
    const opened = await FileDurability.open(path, { appendLog: true })
    assert.equal((await opened.kv.get('inbox', [`from-${child.process.pid}`]))[0]?.version, 1)
    assert.equal(JSON.parse(await readFile(`${path}.lock`, 'utf8')).pid, process.pid)
    await opened.close()
    await expect(stat(`${path}.lock`)).rejects.toThrow(/ENOENT/)
  })

  it('takes over a lock naming a dead pid, or holding junk', async () => {
    const path = await journalPath()
    await (await FileDurability.open(path)).close()
    for (const content of [JSON.stringify({ pid: deadPid(), host: hostname(), takenAt: 1 }), '', '\u0000\u0001junk']) {
      await writeFile(`${path}.lock`, content)
      const opened = await FileDurability.open(path)
      await opened.close()
    }
  })

  it('lets exactly one of three processes racing for a stale lock take it', async () => {
    const path = await journalPath()
    await (await FileDurability.open(path)).close()
    await writeFile(`${path}.lock`, JSON.stringify({ pid: deadPid(), host: hostname(), takenAt: 1 }))
    const children = [1, 2, 3].map(() => startJournalChild('hold', path))
    const outcomes = await Promise.all(
      children.map((child) => child.waitForLine((line) => /"event":"(opened|refused)"/.test(line)).then((line) => JSON.parse(line))),
    )
    const winners = outcomes.filter((outcome) => outcome.event === 'opened')
    assert.equal(winners.length, 1, JSON.stringify(outcomes))
    for (const outcome of outcomes.filter((o) => o.event === 'refused')) {
      assert.equal(outcome.code, 'JOURNAL_LOCKED')
      assert.equal(outcome.pid, winners[0].pid)
    }
    for (const child of children) child.process.stdin!.end('close\n')
    await Promise.all(children.map((child) => child.exited))
  })

  it('treats a lock from another host as live (it cannot be checked)', async () => {
    const path = await journalPath()
    await (await FileDurability.open(path)).close()
    await writeFile(`${path}.lock`, JSON.stringify({ pid: 4242, host: 'elsewhere.example', takenAt: 1 }))
    await expect(FileDurability.open(path)).rejects.toMatchObject({ code: 'JOURNAL_LOCKED', pid: 4242 })
  })

  it('refuses a second open in the same process until close()', async () => {
    const path = await journalPath()
    const first = await FileDurability.open(path)
    const second = await FileDurability.open(path, { appendLog: true }).catch((e: unknown) => e)
    assert.ok(second instanceof JournalLockedError)
    assert.equal(second.pid, process.pid)
    assert.match(second.message, /already open in this process; close\(\) it/)
    await first.close()
    await first.close() // idempotent
    await expect(first.kv.write([put('late')])).rejects.toBeInstanceOf(JournalClosedError)
    await expect(first.start()).rejects.toBeInstanceOf(JournalClosedError)
    const third = await FileDurability.open(path)
    await third.close()
  })

  it('lets exactly one of two concurrent opens in one process win', async () => {
    const path = await journalPath()
    const results = await Promise.allSettled([FileDurability.open(path), FileDurability.open(path)])
    assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected'])
    for (const result of results) if (result.status === 'fulfilled') await result.value.close()
  })

  it('opens read-only while a live process holds it, and refuses writes naming the holder', async () => {
    const path = await journalPath()
    const holder = startJournalChild('hold', path)
    await holder.waitForLine((line) => line.includes('opened'))
    const view = await FileDurability.open(path, { readOnly: true })
    assert.equal(view.readOnly, true)
    assert.equal((await view.kv.get('inbox', [`from-${holder.process.pid}`]))[0]?.version, 1)
    const error = await view.kv.write([put('x')]).catch((e: unknown) => e)
    assert.ok(error instanceof JournalLockedError)
    assert.equal(error.pid, holder.process.pid)
    assert.match(error.message, /open here read-only/)
    await expect(view.compact()).rejects.toBeInstanceOf(JournalLockedError)
    await view.close()
    holder.process.stdin!.write('close\n')
    await holder.exited
    const alone = await FileDurability.open(path, { readOnly: true })
    await expect(alone.kv.write([put('x')])).rejects.toBeInstanceOf(JournalReadOnlyError)
    await alone.close()
  })

  it('creates its files owner-only (0o600) and its directory 0o700', async () => {
    const path = await journalPath()
    const durability = await FileDurability.open(path, { appendLog: { compactEvery: 2 } })
    for (const key of ['a', 'b', 'c']) await durability.kv.write([put(key)])
    // The fold the second write started runs beside the third: the snapshot is there once it ended.
    await durability.kv.flush()
    assert.equal((await stat(join(path, '..'))).mode & 0o777, 0o700)
    for (const file of [path, `${path}.log`, `${path}.lock`]) assert.equal((await stat(file)).mode & 0o777, 0o600, file)
    await durability.close()
  })
})
