/**
 * The reusable pieces under FileDurability: record framing, snapshot encoding, the append log
 * (torn tail vs damage, failed appends), the atomic snapshot write and group commit.
 */
import assert from 'node:assert/strict'
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { AppendLog, readAppendLog, scanAppendLog } from '../../src/crash-safe-file/append-log.js'
import { writeFileAtomic } from '../../src/crash-safe-file/atomic-snapshot.js'
import { crc32, decodeRecord, encodeRecords, FRAME_OVERHEAD_MAX, frameInto, preparePayload } from '../../src/crash-safe-file/framing.js'

import { encodePlacedEntry } from '../../src/crash-safe-file/changes.js'
import { nodeFileSystem } from '../../src/crash-safe-file/fs.js'
import { GroupCommit } from '../../src/crash-safe-file/group-commit.js'
import {
  decodeSnapshot,
  encodeSnapshot,
  SNAPSHOT_FORMAT,
  SNAPSHOT_VERSION,
  snapshotEntries,
  type SnapshotEncodingCache,
} from '../../src/crash-safe-file/snapshot-format.js'
import { KvState } from '../../src/core/backend-internals.js'
import { AppendLogCorruptError } from '../../src/core/errors/errors.js'
import { PowerLossFs } from '../../src/testing/power-loss-fs.js'
import { FailingFs, TearingFs } from './file-fs-wrappers.js'
import { framedLine } from './framed-line.js'

/** A framed line as bytes. */
const frame = framedLine

const dirs: string[] = []
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'botmesh-log-'))
  dirs.push(dir)
  return dir
}
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })))
})

const lines = (...records: [number, string][]) => Buffer.concat(records.map(([seq, payload]) => frame(seq, payload)))

describe('framing', () => {
  it('round-trips a record, and any changed byte fails its length or checksum', () => {
    const line = frame(42, '{"text":"héllo\\tworld 👋"}')
    assert.equal(line.at(-1), 0x0a)
    const payload = '{"text":"héllo\\tworld 👋"}'
    // Read back with its size and checksum, ready to frame again as preparePayload would make it.
    const { data, crc } = preparePayload(payload)
    assert.deepEqual(decodeRecord(line.subarray(0, -1)), { seq: 42, payload, bytes: data.length, crc })
    for (let at = 0; at < line.length - 1; at++) {
      const damaged = Buffer.from(line.subarray(0, -1))
      damaged[at] = damaged[at]! ^ 0x01
      assert.equal(typeof decodeRecord(damaged), 'string', `a flipped bit at byte ${at} is detected`)
    }
  })

  it('refuses a payload with a newline', () => {
    assert.throws(() => preparePayload('a\nb'), /newline/)
    assert.throws(() => encodeRecords(1, ['a\nb']), /newline/)
  })

  it('frameInto writes a record byte for byte as the format spells it', () => {
    for (const [seq, payload] of [
      [1, ''],
      [2, '{"text":"héllo\\tworld 👋"}'],
      [123_456_789_012, 'x'.repeat(5000)],
    ] as const) {
      const target = Buffer.alloc(payload.length * 4 + FRAME_OVERHEAD_MAX + 3, 0xff)
      const end = frameInto(target, 3, seq, preparePayload(payload))
      assert.ok(target.subarray(3, end).equals(framedLine(seq, payload)))
      assert.equal(target[2], 0xff)
    }
  })

  it('frames a batch in one buffer, byte for byte as the format spells it', () => {
    const payloads = ['[1,"a"]', '["é€😀",{"x":"\\u0000"}]', '', 'x'.repeat(5000)]
    const one = Buffer.concat(payloads.map((payload, n) => framedLine(7 + n, payload)))
    assert.ok(encodeRecords(7, payloads).equals(one))
    assert.throws(() => encodeRecords(1, ['a', 'b\nc']), /newline/)
  })

  it('computes the standard CRC-32', () => {
    assert.equal(crc32(Buffer.from('123456789')), 0xcbf43926)
    assert.equal(crc32(Buffer.from('56789'), crc32(Buffer.from('1234'))), 0xcbf43926)
  })
})

describe('snapshot encoding', () => {
  it('frames every entry after the header, byte for byte as line by line, across write chunks, and reads back with its payloads cached', () => {
    const state = new KvState()
    const entries = 3_000 // about 1.6 MB of lines: more than one SNAPSHOT_CHUNK_BYTES chunk
    for (let n = 0; n < entries; n++) {
      const value = { id: `m${n}`, text: `héllo ${n} 👋 ${'x'.repeat(n % 700)}` }
      state.apply(n % 2 ? 'a' : 'b', {
        op: 'put',
        collection: 'inbox',
        key: `m${n}`,
        expectVersion: 0,
        value,
        state: 'done',
        stateTime: n,
        due: null,
      })
    }
    const encoded = encodeSnapshot(state, 17)
    expect(encoded.entries).toBe(entries)
    expect(encoded.chunks.length).toBeGreaterThan(1)
    const bytes = Buffer.concat(encoded.chunks)
    const header = { format: SNAPSHOT_FORMAT, version: SNAPSHOT_VERSION, logSeq: 17, entries }
    const lines = [
      framedLine(1, JSON.stringify(header)),
      ...snapshotEntries(state).map((placed, n) => framedLine(n + 2, encodePlacedEntry(placed))),
    ]
    assert.ok(bytes.equals(Buffer.concat(lines)))
    // Read back, each payload cached: the next encoding frames the same bytes without encoding an entry.
    const cache: SnapshotEncodingCache = new WeakMap()
    const read = decodeSnapshot('snapshot', bytes, SNAPSHOT_FORMAT, cache)
    expect(read.entries).toHaveLength(entries)
    const again = new KvState()
    for (const { scope, collection, entry } of read.entries) again.load(scope, collection, entry)
    assert.ok(Buffer.concat(encodeSnapshot(again, 17, new Map(), cache).chunks).equals(bytes))
    expect(read.entries.every(({ entry }) => cache.has(entry))).toBe(true)
  })
})

describe('reading an append log', () => {
  it('cuts nothing from a sound log', () => {
    const content = lines([1, '"a"'], [2, '"b"'])
    const scan = scanAppendLog('x.log', content)
    assert.deepEqual(
      scan.records.map((r) => [r.seq, r.payload, r.line, r.offset]),
      [
        [1, '"a"', 1, 0],
        [2, '"b"', 2, frame(1, '"a"').length],
      ],
    )
    assert.equal(scan.validBytes, content.length)
    assert.equal(scan.tornTail, undefined)
  })

  it('tells an incomplete last line (torn tail) from damage', () => {
    const sound = lines([1, '"a"'], [2, '"b"'])
    const torn = Buffer.concat([sound, frame(3, '"c"').subarray(0, 7)])
    const scan = scanAppendLog('x.log', torn)
    assert.equal(scan.records.length, 2)
    assert.deepEqual(scan.tornTail, { offset: sound.length, bytes: 7 })
    assert.equal(scan.validBytes, sound.length)
  })

  it('refuses a complete bad line in the middle with file, line and byte offset', () => {
    const first = frame(1, '"a"')
    const bad = Buffer.from('1\t3\tdeadbeef\t"x"\n')
    const content = Buffer.concat([first, bad, frame(2, '"b"')])
    const error = catchError(() => scanAppendLog('/j/x.log', content))
    assert.ok(error instanceof AppendLogCorruptError)
    assert.equal(error.code, 'APPEND_LOG_CORRUPT')
    assert.deepEqual([error.file, error.line, error.offset], ['/j/x.log', 2, first.length])
  })

  it('refuses a complete last line that fails its checksum (damage, not a torn tail)', () => {
    const content = Buffer.concat([frame(1, '"a"'), Buffer.from('2\t3\t00000000\t"b"\n')])
    expect(() => scanAppendLog('x.log', content)).toThrow(AppendLogCorruptError)
  })

  it('refuses a gap or a repeat in the sequence', () => {
    expect(() => scanAppendLog('x.log', lines([1, '"a"'], [3, '"c"']))).toThrow(/sequence 3 follows 1/)
    expect(() => scanAppendLog('x.log', lines([1, '"a"'], [1, '"a"']))).toThrow(/sequence 1 follows 1/)
  })

  it('reads a missing log as none and an empty log as no records', async () => {
    const dir = await tempDir()
    assert.equal(await readAppendLog(nodeFileSystem, join(dir, 'none.log')), undefined)
    await writeFile(join(dir, 'empty.log'), '')
    assert.deepEqual((await readAppendLog(nodeFileSystem, join(dir, 'empty.log')))?.records, [])
  })
})

describe('AppendLog', () => {
  it('appends a batch with one write, continues sequences, and cuts a torn tail on open', async () => {
    const path = join(await tempDir(), 'j.log')
    await writeFile(path, Buffer.concat([lines([5, '"a"']), Buffer.from('6\t9\tab')]))
    const scan = (await readAppendLog(nodeFileSystem, path))!
    const log = await AppendLog.open(nodeFileSystem, path, { validBytes: scan.validBytes, lastSeq: 5, records: 1, fsync: true })
    await log.append(['"b"', '"c"'])
    await log.close()
    assert.deepEqual((await readFile(path)).toString(), lines([5, '"a"'], [6, '"b"'], [7, '"c"']).toString())
  })

  it('cuts a failed half-written append before the next one', async () => {
    const path = join(await tempDir(), 'j.log')
    const fs = new TearingFs(nodeFileSystem)
    const log = await AppendLog.open(fs, path, { validBytes: 0, lastSeq: 0, records: 0, fsync: true })
    await log.append(['"a"'])
    fs.tearNextLogWrite(5)
    await expect(log.append(['"lost"'])).rejects.toThrow(/ENOSPC/)
    await log.append(['"b"'])
    await log.close()
    assert.equal((await readFile(path)).toString(), lines([1, '"a"'], [2, '"b"']).toString())
  })

  it('makes its truncation durable before the next append (a cut cannot mix old and new records)', async () => {
    const dir = await tempDir()
    for (let seed = 1; seed <= 40; seed++) {
      const path = join(dir, `j${seed}.log`)
      const fs = new PowerLossFs(nodeFileSystem, { seed })
      const log = await AppendLog.open(fs, path, { validBytes: 0, lastSeq: 0, records: 0, fsync: true })
      await log.append([JSON.stringify('old'.repeat(20)), JSON.stringify('older'.repeat(20))])
      await log.truncate()
      // Unsynced: a log opened without fsync, as appendLog { fsync: false } does.
      const unsynced = await AppendLog.open(fs, path, { validBytes: 0, lastSeq: 2, records: 0, fsync: false })
      await unsynced.append(['"new"'])
      await fs.powerLoss()
      const scan = await readAppendLog(nodeFileSystem, path) // throws on a mix of old and new bytes
      assert.ok(
        scan!.records.every((r) => r.seq === 3),
        `seed ${seed}: only the new record may survive`,
      )
    }
  })
})

describe('writeFileAtomic', () => {
  it('replaces the file whole, owner-only, and leaves no temp behind', async () => {
    const dir = await tempDir()
    const path = join(dir, 'snap')
    await writeFile(path, 'old')
    await writeFileAtomic(nodeFileSystem, path, [Buffer.from('n'), Buffer.from('ew')], { fsync: true })
    assert.equal(await readFile(path, 'utf8'), 'new')
    assert.equal((await stat(path)).mode & 0o777, 0o600)
    assert.deepEqual(await readdir(dir), ['snap'])
  })

  it('leaves the old file and no temp when a step fails', async () => {
    const dir = await tempDir()
    const path = join(dir, 'snap')
    await writeFile(path, 'old')
    for (const operation of ['write', 'sync', 'rename']) {
      const fs = new FailingFs(nodeFileSystem)
      fs.failNext(operation, dir)
      await expect(writeFileAtomic(fs, path, [Buffer.from('new')], { fsync: true })).rejects.toThrow(/injected/)
      assert.equal(await readFile(path, 'utf8'), 'old', `after a failed ${operation}`)
      assert.deepEqual(await readdir(dir), ['snap'])
    }
  })
})

describe('GroupCommit', () => {
  it('commits writes made while a commit is in flight together, in order', async () => {
    const batches: number[][] = []
    const commits = new GroupCommit<number>({ commit: async (items) => void batches.push(items) })
    await Promise.all([1, 2, 3].map((n) => commits.submit(n)))
    const first = commits.submit(4)
    const later = [5, 6].map((n) => commits.submit(n))
    await Promise.all([first, ...later])
    assert.deepEqual(batches, [
      [1, 2, 3],
      [4, 5, 6],
    ])
  })

  it('rejects a failed batch and everything queued behind it, telling onFailure first', async () => {
    const failedSeen: number[][] = []
    let fail = true
    const commits = new GroupCommit<number>({
      commit: async () => {
        await new Promise((resolve) => setImmediate(resolve))
        if (fail) throw new Error('disk full')
      },
      onFailure: (items) => void failedSeen.push(items),
    })
    const first = commits.submit(1)
    await Promise.resolve()
    await Promise.resolve()
    const behind = commits.submit(2)
    const order: string[] = []
    const task = commits.exclusive(async () => void order.push('task'))
    await expect(first).rejects.toThrow('disk full')
    await expect(behind).rejects.toThrow('disk full')
    await task
    assert.deepEqual(failedSeen, [[1, 2]])
    assert.deepEqual(order, ['task'])
    fail = false
    await commits.submit(3)
  })

  it('runs an exclusive task between batches, never during one', async () => {
    const events: string[] = []
    const commits = new GroupCommit<string>({
      commit: async (items) => {
        events.push(`start ${items.join(',')}`)
        await new Promise((resolve) => setImmediate(resolve))
        events.push(`end ${items.join(',')}`)
      },
    })
    const a = commits.submit('a')
    const task = commits.exclusive(async () => void events.push('task'))
    const b = commits.submit('b')
    await Promise.all([a, task, b])
    assert.deepEqual(events, ['start a', 'end a', 'task', 'start b', 'end b'])
  })
})

function catchError(run: () => unknown): unknown {
  try {
    run()
  } catch (error) {
    return error
  }
  throw new Error('expected an error')
}
