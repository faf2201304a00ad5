/**
 * Every damage case of a file journal gets its documented outcome: refused on open with an error
 * naming the file (and line and byte offset for the log), every file left byte for byte as it
 * was; a torn last log line cut and the rest replayed. verify() reports the same damage without
 * changing anything, and salvage() rescues what is readable into a new file.
 */
import assert from 'node:assert/strict'
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { FileDurability, salvageJournal, verifyJournal } from '../../src/backends/file/index.js'
import { framedLine } from './framed-line.js'

import { AppendLogCorruptError, JournalStateError } from '../../src/core/errors/errors.js'
import type { KvOp } from '../../src/core/durability/journal/kv.js'

/** A framed line as bytes. */
const frame = framedLine

const dirs: string[] = []
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'botmesh-damage-'))
  dirs.push(dir)
  return dir
}
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })))
})

const put = (key: string, n: number): KvOp => ({
  op: 'put',
  collection: 'inbox',
  key,
  expectVersion: 0,
  value: { n },
  state: 'pending',
  stateTime: n,
  due: null,
})

/**
 * A journal as a crash leaves it: `snapshotKeys` folded into the snapshot, `logKeys` in the log
 * (one record each), copied aside before the writer closed.
 */
async function crashedJournal(options: { snapshotKeys: number; logKeys: number }): Promise<string> {
  const dir = await tempDir()
  const live = join(dir, 'live', 'durable.json')
  if (options.snapshotKeys > 0) {
    const first = await FileDurability.open(live)
    for (let n = 1; n <= options.snapshotKeys; n++) await first.kv.write([put(`s${n}`, n)])
    await first.close()
  }
  const second = await FileDurability.open(live, { appendLog: true })
  for (let n = 1; n <= options.logKeys; n++) await second.kv.write([put(`l${n}`, n)])
  const copy = join(dir, 'durable.json')
  for (const suffix of ['', '.log']) await copyFile(live + suffix, copy + suffix).catch(() => {})
  await second.close()
  return copy
}

/** Every file of the journal's directory, name → bytes. */
async function filesOf(path: string): Promise<Map<string, string>> {
  const dir = join(path, '..')
  const files = new Map<string, string>()
  for (const name of await readdir(dir)) {
    const full = join(dir, name)
    files.set(name, (await stat(full)).isDirectory() ? '<dir>' : (await readFile(full)).toString('base64'))
  }
  return files
}

/** Opens `path` expecting a refusal; checks that nothing changed on disk. */
async function expectRefused(path: string): Promise<JournalStateError> {
  const before = await filesOf(path)
  const error = await FileDurability.open(path).then(
    (opened) => opened.close().then(() => assert.fail('open accepted a damaged journal')),
    (error: unknown) => error,
  )
  // A damaged snapshot is JOURNAL_CORRUPT, a damaged log APPEND_LOG_CORRUPT: both in the journal-state group, naming the file.
  assert.ok(error instanceof JournalStateError, `refused with a JournalStateError: ${String(error)}`)
  assert.deepEqual(await filesOf(path), before, 'every file is left exactly as it was')
  // A refusal releases the lock: the next open in this process gets the same answer, not JOURNAL_LOCKED.
  await expect(FileDurability.open(path)).rejects.toMatchObject({ code: error.code })
  return error
}

async function keysOf(durability: FileDurability): Promise<string[]> {
  const entries = await durability.kv.list('inbox', { state: 'pending', limit: 1000 })
  return entries.map((entry) => entry.key).sort()
}

describe('a damaged snapshot is refused, naming the file, and left as it is', () => {
  it('a truncated snapshot', async () => {
    const path = await crashedJournal({ snapshotKeys: 5, logKeys: 0 })
    await truncate(path, (await stat(path)).size - 20)
    const error = await expectRefused(path)
    assert.equal(error.code, 'JOURNAL_CORRUPT')
    assert.equal(error.file, path)
    assert.match(error.message, /cut short/)
    assert.match(error.message, /restore it from a backup or move it aside/)
  })

  it('a snapshot cut at a line boundary (fewer entries than its header announces)', async () => {
    const path = await crashedJournal({ snapshotKeys: 5, logKeys: 0 })
    const content = await readFile(path)
    await writeFile(path, content.subarray(0, content.indexOf(0x0a, content.indexOf(0x0a) + 1) + 1))
    assert.match((await expectRefused(path)).message, /1 of the 5 entries/)
  })

  it('binary junk', async () => {
    const path = join(await tempDir(), 'durable.json')
    await writeFile(path, Buffer.from(Array.from({ length: 4096 }, (_, n) => (n * 7919) % 256)))
    assert.match((await expectRefused(path)).message, /not a FileDurability snapshot/)
  })

  it('a 0-byte file is refused, never read as an empty journal', async () => {
    const path = join(await tempDir(), 'durable.json')
    await writeFile(path, '')
    assert.match((await expectRefused(path)).message, /is empty \(0 bytes\)/)
  })

  it('a directory where the file should be', async () => {
    const path = join(await tempDir(), 'durable.json')
    await mkdir(path)
    const error = await expectRefused(path)
    assert.equal(error.file, path)
    assert.match(error.message, /is a directory/)
  })

  it('valid JSON of another shape', async () => {
    const path = join(await tempDir(), 'durable.json')
    await writeFile(path, '{"entries":[]}\n')
    assert.match((await expectRefused(path)).message, /not a FileDurability snapshot/)
  })

  it('a well-framed entry of the wrong shape', async () => {
    const path = await crashedJournal({ snapshotKeys: 2, logKeys: 0 })
    const content = (await readFile(path)).toString()
    const [header, first] = content.split('\n')
    await writeFile(path, `${header}\n${first}\n${frame(3, JSON.stringify(['', 'inbox', { key: 'x', version: 'one' }])).toString()}`)
    assert.match((await expectRefused(path)).message, /line 3 .*no valid version/)
  })
})

describe('the append log', () => {
  it('a torn last line is cut and the rest replayed', async () => {
    const path = await crashedJournal({ snapshotKeys: 2, logKeys: 3 })
    const sound = await readFile(`${path}.log`)
    await writeFile(`${path}.log`, Buffer.concat([sound, frame(4, '[["put"').subarray(0, 9)]))
    const readOnly = await FileDurability.open(path, { readOnly: true })
    assert.deepEqual(await keysOf(readOnly), ['l1', 'l2', 'l3', 's1', 's2'])
    assert.equal((await readFile(`${path}.log`)).length, sound.length + 9, 'a read-only open cuts nothing')
    await readOnly.close()
    const opened = await FileDurability.open(path, { appendLog: true })
    assert.deepEqual(await keysOf(opened), ['l1', 'l2', 'l3', 's1', 's2'])
    assert.deepEqual(await readFile(`${path}.log`), sound, 'the torn tail is cut')
    await opened.kv.write([put('l4', 4)])
    await opened.close()
    const reopened = await FileDurability.open(path)
    assert.deepEqual(await keysOf(reopened), ['l1', 'l2', 'l3', 'l4', 's1', 's2'])
    await reopened.close()
  })

  it('a bad line in the middle is APPEND_LOG_CORRUPT with file, line and byte offset', async () => {
    const path = await crashedJournal({ snapshotKeys: 1, logKeys: 4 })
    const log = await readFile(`${path}.log`)
    const secondLine = log.indexOf(0x0a) + 1
    const damaged = Buffer.from(log)
    damaged[secondLine + 12] = damaged[secondLine + 12]! ^ 0x20
    await writeFile(`${path}.log`, damaged)
    const error = await expectRefused(path)
    assert.ok(error instanceof AppendLogCorruptError)
    assert.deepEqual([error.code, error.file, error.line, error.offset], ['APPEND_LOG_CORRUPT', `${path}.log`, 2, secondLine])
    assert.match(error.message, /line 2 \(byte offset \d+\)/)
  })

  it('a complete last line that fails its checksum is damage, not a torn tail', async () => {
    const path = await crashedJournal({ snapshotKeys: 0, logKeys: 3 })
    const log = await readFile(`${path}.log`)
    const damaged = Buffer.from(log)
    damaged[log.length - 3] = damaged[log.length - 3]! ^ 0x01
    await writeFile(`${path}.log`, damaged)
    const error = await expectRefused(path)
    assert.ok(error instanceof AppendLogCorruptError)
    assert.equal(error.line, 3)
  })

  it('a well-framed record of the wrong shape is damage', async () => {
    const path = await crashedJournal({ snapshotKeys: 0, logKeys: 2 })
    const log = await readFile(`${path}.log`)
    await writeFile(`${path}.log`, Buffer.concat([log, frame(3, '[["put","","inbox",{"key":7}]]'), frame(4, '[]')]))
    const error = await expectRefused(path)
    assert.ok(error instanceof AppendLogCorruptError)
    assert.deepEqual([error.line, error.offset], [3, log.length])
  })

  it('a log that starts past the snapshot (records missing) is refused', async () => {
    const path = await crashedJournal({ snapshotKeys: 0, logKeys: 0 })
    await writeFile(`${path}.log`, Buffer.concat([frame(7, '[]'), frame(8, '[]')]))
    const error = await expectRefused(path)
    assert.ok(error instanceof AppendLogCorruptError)
    assert.match(error.message, /records 1\.\.6 are missing/)
  })

  it('a directory where the log should be is refused', async () => {
    const path = await crashedJournal({ snapshotKeys: 2, logKeys: 0 })
    await mkdir(`${path}.log`)
    assert.equal((await expectRefused(path)).file, `${path}.log`)
  })

  it('a crash between the snapshot and the log truncation is harmless', async () => {
    const path = await crashedJournal({ snapshotKeys: 0, logKeys: 3 })
    const log = await readFile(`${path}.log`)
    // Fold the copy's log into its snapshot, then put the old log back, as a crash before the truncation leaves it.
    const folding = await FileDurability.open(path, { appendLog: true })
    await folding.compact()
    await folding.close()
    const snapshot = await readFile(path)
    for (const appendLog of [true, false]) {
      const crashed = join(await tempDir(), 'durable.json')
      await writeFile(crashed, snapshot)
      await writeFile(`${crashed}.log`, log)
      const opened = await FileDurability.open(crashed, { appendLog })
      assert.deepEqual(await keysOf(opened), ['l1', 'l2', 'l3'])
      assert.equal(opened.stats().logRecords, 0, 'the records the snapshot holds are dropped from the log')
      await opened.kv.write([put('again', 1)])
      await opened.close()
      const reopened = await FileDurability.open(crashed, { readOnly: true })
      assert.deepEqual(await keysOf(reopened), ['again', 'l1', 'l2', 'l3'])
    }
  })

  it('a leftover log is replayed and folded by an open without appendLog', async () => {
    const path = await crashedJournal({ snapshotKeys: 2, logKeys: 3 })
    const opened = await FileDurability.open(path)
    assert.deepEqual(await keysOf(opened), ['l1', 'l2', 'l3', 's1', 's2'])
    await expect(stat(`${path}.log`)).rejects.toThrow(/ENOENT/)
    await opened.close()
    const reopened = await FileDurability.open(path, { appendLog: true })
    assert.deepEqual(await keysOf(reopened), ['l1', 'l2', 'l3', 's1', 's2'])
    await reopened.close()
  })
})

describe('verify and salvage', () => {
  it('verify reports damage with file, line and offset, and changes nothing', async () => {
    const path = await crashedJournal({ snapshotKeys: 3, logKeys: 4 })
    const sound = await verifyJournal(path)
    assert.equal(sound.ok, true)
    assert.deepEqual([sound.snapshot.records, sound.log.records, sound.logRecordsToReplay], [3, 4, 4])
    const log = await readFile(`${path}.log`)
    const third = log.indexOf(0x0a, log.indexOf(0x0a) + 1) + 1
    await writeFile(`${path}.log`, Buffer.concat([log.subarray(0, third), Buffer.from('junk\n'), log.subarray(third)]))
    const before = await filesOf(path)
    const report = await verifyJournal(path)
    assert.equal(report.ok, false)
    assert.deepEqual(report.log.damage?.line, 3)
    assert.equal(report.log.damage?.offset, third)
    assert.equal(report.log.records, 2)
    assert.deepEqual(await filesOf(path), before)
  })

  it('verify reports a 0-byte snapshot and a torn tail (which is not damage)', async () => {
    const path = await crashedJournal({ snapshotKeys: 0, logKeys: 2 })
    await writeFile(`${path}.log`, Buffer.concat([await readFile(`${path}.log`), Buffer.from('3\t4')]))
    const torn = await verifyJournal(path)
    assert.equal(torn.ok, true)
    assert.deepEqual(torn.log.tornTail?.bytes, 3)
    await writeFile(path, '')
    const empty = await verifyJournal(path)
    assert.equal(empty.ok, false)
    assert.match(empty.snapshot.damage!.detail, /0 bytes/)
  })

  it('salvage writes what is readable up to the damage into a new journal', async () => {
    const path = await crashedJournal({ snapshotKeys: 3, logKeys: 4 })
    const log = await readFile(`${path}.log`)
    const third = log.indexOf(0x0a, log.indexOf(0x0a) + 1) + 1
    const damaged = Buffer.from(log)
    damaged[third + 20] = damaged[third + 20]! ^ 0x04
    await writeFile(`${path}.log`, damaged)
    const before = await filesOf(path)
    const out = join(path, '..', 'salvaged.json')
    const report = await salvageJournal(path, out)
    assert.deepEqual([report.entries, report.fromSnapshot, report.fromLog, report.logDamage?.line, report.logLinesLost], [5, 3, 2, 3, 2])
    const saved = await FileDurability.open(out)
    assert.deepEqual(await keysOf(saved), ['l1', 'l2', 's1', 's2', 's3'])
    await saved.close()
    assert.equal((await stat(out)).mode & 0o777, 0o600)
    const after = await filesOf(path)
    after.delete('salvaged.json')
    assert.deepEqual(after, before, 'the damaged files are left as they are')
    await expect(salvageJournal(path, out)).rejects.toThrow(/exists/)
  })

  it('salvage keeps the readable entries of a truncated snapshot', async () => {
    const path = await crashedJournal({ snapshotKeys: 6, logKeys: 0 })
    const content = await readFile(path)
    await writeFile(path, content.subarray(0, content.length - 30))
    const report = await salvageJournal(path, join(path, '..', 'out.json'))
    assert.equal(report.fromSnapshot, 5)
    assert.match(report.snapshotDamage!.detail, /cut short/)
  })
})
