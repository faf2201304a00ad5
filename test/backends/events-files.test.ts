/**
 * The events journals' files: damage refused (APPEND_LOG_CORRUPT with file, line and offset, every
 * file left as it was), a torn last line cut, the pid lock of a locked FileEventJournal and the
 * shared journal's refusal of a file it holds, the mutex (a dead holder broken at once, a stalled
 * one after staleLockMs, a live one never), appendLog folding (and a crash between the snapshot and
 * the truncation), heartbeats written with the next change, close().
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { appendFileSync, existsSync, readFileSync, utimesSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, it } from 'vitest'
import { FileEventJournal, SharedFileEventJournal, type MutexBreak } from '../../src/events/index.js'
import { mutexPathOf } from '../../src/events/mutex-file.js'
import { nodeFileSystem, type FileSystem } from '../../src/crash-safe-file/fs.js'
import { AppendLogCorruptError, JournalClosedError, JournalLockedError, JournalUnavailableError } from '../../src/core/errors/errors.js'
import { removeDirs, tempDir } from './events-kit.js'

afterAll(removeDirs)

const job = (id: string) => ({ id, eventType: 'job' })
const bytesOf = (path: string) => (existsSync(path) ? readFileSync(path) : undefined)

/** A journal with five log lines and no snapshot yet (appendLog, no fold). */
async function loggedJournal(): Promise<string> {
  const path = join(tempDir(), 'events.json')
  const journal = await SharedFileEventJournal.open(path, { appendLog: { compactEvery: 1_000 } })
  for (const id of ['a', 'b', 'c', 'd', 'e']) await journal.append(job(id))
  await journal.close()
  return path
}

describe('damage', () => {
  it('a damaged log line in the middle is refused by both journals with file, line and offset; nothing is changed', async () => {
    const path = await loggedJournal()
    const log = `${path}.log`
    const lines = readFileSync(log, 'utf8').split('\n')
    const offset = Buffer.byteLength(lines[0]!) + 1
    lines[1] = lines[1]!.replace('"b"', '"B"') // same length, wrong checksum
    writeFileSync(log, lines.join('\n'))
    const before = { snapshot: bytesOf(path), log: bytesOf(log) }
    const refused = (error: unknown) =>
      error instanceof AppendLogCorruptError &&
      error.code === 'APPEND_LOG_CORRUPT' &&
      error.file === log &&
      error.line === 2 &&
      error.offset === offset
    await assert.rejects(SharedFileEventJournal.open(path, { appendLog: true }), refused)
    await assert.rejects(SharedFileEventJournal.open(path), refused)
    await assert.rejects(FileEventJournal.open(path, { lock: true }), refused)
    assert.deepEqual({ snapshot: bytesOf(path), log: bytesOf(log) }, before, 'the files are left as they were')
    assert.equal(existsSync(`${path}.lock`) || existsSync(mutexPathOf(path)), false, 'no lock or mutex is left behind')
  })

  it('a torn last line is cut, and the rest kept', async () => {
    const path = await loggedJournal()
    appendFileSync(`${path}.log`, '6\t120\t0000')
    const shared = await SharedFileEventJournal.open(path, { appendLog: true })
    await shared.append(job('f'))
    assert.deepEqual(
      (await shared.list()).map((r) => r.id),
      ['a', 'b', 'c', 'd', 'e', 'f'],
    )
    await shared.close()
    assert.ok(readFileSync(`${path}.log`, 'utf8').endsWith('\n'), 'the torn tail was cut before the append')
    appendFileSync(`${path}.log`, '9\t12')
    const locked = await FileEventJournal.open(path, { lock: true })
    assert.deepEqual(
      (await locked.list()).map((r) => r.id),
      ['a', 'b', 'c', 'd', 'e', 'f'],
    )
    await locked.close()
    assert.equal(existsSync(`${path}.log`), false, "a FileEventJournal folds a shared journal's log into the file")
  })
})

describe('locks', () => {
  it('a locked FileEventJournal refuses a second open in this process until close()', async () => {
    const path = join(tempDir(), 'events.json')
    const first = await FileEventJournal.open(path, { lock: true })
    await assert.rejects(
      FileEventJournal.open(path, { lock: true }),
      (error: unknown) => error instanceof JournalLockedError && error.pid === process.pid,
    )
    await first.close()
    const second = await FileEventJournal.open(path, { lock: true })
    await second.close()
  })

  it('a shared journal refuses a file a live locked FileEventJournal holds, also when that journal opens it later', async () => {
    const path = join(tempDir(), 'events.json')
    const shared = await SharedFileEventJournal.open(path, { appendLog: true })
    await shared.append(job('before'))
    const locked = await FileEventJournal.open(path, { lock: true })
    const refusal = (error: unknown) =>
      error instanceof JournalLockedError && error.pid === process.pid && /FileEventJournal/.test(error.message)
    await assert.rejects(shared.append(job('lost?')), refusal)
    await assert.rejects(shared.list(), refusal)
    await assert.rejects(SharedFileEventJournal.open(path), refusal)
    assert.deepEqual(
      (await locked.list()).map((r) => r.id),
      ['before'],
      'the locked journal read every shared write',
    )
    await locked.append(job('locked'))
    await locked.close()
    assert.deepEqual(
      (await shared.list()).map((r) => r.id),
      ['before', 'locked'],
      'nothing was lost either way',
    )
    await shared.close()
  })
})

describe('the mutex', () => {
  const holderOf = (pid: number) => JSON.stringify({ pid, host: hostname(), takenAt: Date.now(), nonce: 'x' })

  it('breaks at once a mutex left by a dead process', async () => {
    const path = join(tempDir(), 'events.json')
    const dead = spawnSync(process.execPath, ['-e', '']).pid!
    writeFileSync(mutexPathOf(path), holderOf(dead))
    const breaks: MutexBreak[] = []
    const journal = await SharedFileEventJournal.open(path, { staleLockMs: 60_000, onMutexBroken: (info) => breaks.push(info) })
    await journal.append(job('a'))
    assert.deepEqual(
      breaks.map((b) => [b.reason, b.pid]),
      [['dead', dead]],
    )
    await journal.close()
  })

  it("breaks a live holder's mutex only once it went unrefreshed for staleLockMs", async () => {
    const path = join(tempDir(), 'events.json')
    const mutex = mutexPathOf(path)
    writeFileSync(mutex, holderOf(process.ppid))
    const breaks: MutexBreak[] = []
    // A live holder that keeps refreshing the mutex is waited for, then given up on (3 × staleLockMs).
    const fresh = setInterval(() => utimesSync(mutex, new Date(), new Date()), 20)
    try {
      await assert.rejects(
        SharedFileEventJournal.open(path, { staleLockMs: 200, onMutexBroken: (info) => breaks.push(info) }),
        (error: unknown) => error instanceof JournalUnavailableError && error.message.includes(String(process.ppid)),
      )
    } finally {
      clearInterval(fresh)
    }
    assert.equal(breaks.length, 0, 'a live, fresh holder is never broken')
    const old = new Date(Date.now() - 5_000)
    utimesSync(mutex, old, old)
    const journal = await SharedFileEventJournal.open(path, { staleLockMs: 1_000, onMutexBroken: (info) => breaks.push(info) })
    assert.deepEqual(
      breaks.map((b) => [b.reason, b.pid]),
      [['stalled', process.ppid]],
    )
    assert.ok(breaks[0]!.ageMs >= 1_000)
    await journal.close()
  })

  it("two journals of one process take turns; the later one sees the earlier one's writes", async () => {
    const path = join(tempDir(), 'events.json')
    const [a, b] = await Promise.all([SharedFileEventJournal.open(path, { appendLog: true }), SharedFileEventJournal.open(path)])
    await Promise.all(Array.from({ length: 20 }, (_, n) => (n % 2 ? a : b).append(job(`j${n}`))))
    const claims = await Promise.all(Array.from({ length: 30 }, (_, n) => (n % 2 ? a : b).claim({ owner: `w${n}`, leaseMs: 60_000 })))
    const ids = claims.flat().map((r) => r.id)
    assert.equal(ids.length, 20)
    assert.equal(new Set(ids).size, 20, 'each record was claimed once')
    assert.equal((await a.count()).processing, 20)
    await Promise.all([a.close(), b.close()])
  })
})

describe('appendLog', () => {
  it('folds the log into the file every compactEvery lines; a crash between the snapshot and the truncation loses nothing', async () => {
    const path = join(tempDir(), 'events.json')
    let failTruncate = false
    const fs: FileSystem = {
      ...nodeFileSystem,
      async open(file, how, mode) {
        const handle = await nodeFileSystem.open(file, how, mode)
        return {
          ...handle,
          truncate: async (length: number) => {
            if (failTruncate && length === 0) throw Object.assign(new Error('the process died here'), { code: 'EIO' })
            return handle.truncate(length)
          },
        }
      },
    }
    const journal = await SharedFileEventJournal.open(path, { appendLog: { compactEvery: 4 }, fs })
    for (let n = 0; n < 6; n++) await journal.append(job(`a${n}`))
    const header = () => JSON.parse(readFileSync(path, 'utf8').split('\n')[0]!.split('\t')[3]!) as { logSeq: number; format: string }
    assert.deepEqual(header(), { ...header(), format: 'botmesh-events', logSeq: 4 })
    assert.equal(readFileSync(`${path}.log`, 'utf8').trim().split('\n').length, 2)
    failTruncate = true
    await journal.append(job('a6'))
    await journal.append(job('a7')) // the fold: the snapshot is written, the truncation fails
    assert.ok(journal.compactionError, 'the failed fold is reported')
    assert.equal(header().logSeq, 8)
    assert.equal(readFileSync(`${path}.log`, 'utf8').trim().split('\n').length, 4, 'the log still holds what the snapshot holds')
    failTruncate = false
    await journal.append(job('a8'))
    await journal.close()
    const reopened = await SharedFileEventJournal.open(path, { appendLog: true })
    assert.deepEqual(
      (await reopened.list()).map((r) => r.id),
      ['a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7', 'a8'],
    )
    await reopened.close()
  })
})

describe('FileEventJournal', () => {
  it('writes a lease heartbeat only with the next change', async () => {
    const path = join(tempDir(), 'events.json')
    let renames = 0
    const fs: FileSystem = { ...nodeFileSystem, rename: (from, to) => (renames++, nodeFileSystem.rename(from, to)) }
    const journal = await FileEventJournal.open(path, { lock: true, fs })
    await journal.append(job('a'))
    const [claimed] = await journal.claim({ owner: 'w', leaseMs: 1_000 })
    const written = renames
    assert.deepEqual(await journal.heartbeat([{ id: 'a', token: claimed!.lease!.token }], 60_000), [true])
    const extended = (await journal.get('a'))!.lease!.expiresAt
    assert.ok(extended > claimed!.lease!.expiresAt)
    assert.equal(renames, written, 'no rewrite for a heartbeat')
    await journal.append(job('b'))
    assert.equal(renames, written + 1)
    await journal.close()
    const reopened = await FileEventJournal.open(path)
    assert.equal((await reopened.get('a'))!.lease!.expiresAt, extended, 'the heartbeat reached the file with the next change')
    await reopened.close()
  })

  it('close() lets the writes already called commit and refuses later ones (both journals)', async () => {
    for (const open of [
      (path: string) => FileEventJournal.open(path, { lock: true }),
      (path: string) => SharedFileEventJournal.open(path),
    ]) {
      const path = join(tempDir(), 'events.json')
      const journal = await open(path)
      const pending = journal.append([job('a'), job('b')])
      const closed = journal.close()
      await assert.rejects(journal.append(job('c')), JournalClosedError)
      assert.equal((await pending).length, 2)
      await closed
      await assert.rejects(journal.list(), JournalClosedError)
      const reopened = await SharedFileEventJournal.open(path)
      assert.deepEqual(
        (await reopened.list()).map((r) => r.id),
        ['a', 'b'],
      )
      await reopened.close()
    }
  })
})
