/**
 * FileDurability's own behaviour beyond the conformance suite: what survives a reopen, group
 * commit, compaction, flat write cost, the lifecycle (open/start/stop/close), failed commits rolled
 * back, and nothing observed before it is committed.
 */
import assert from 'node:assert/strict'
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { FileDurability, nodeFileSystem, type FileDurabilityOptions } from '../../src/backends/file/index.js'
import type { KvOp } from '../../src/core/durability/journal/kv.js'
import { ConfigError, JournalUnavailableError } from '../../src/core/errors/errors.js'
import { CountingFs, FailingFs } from './file-fs-wrappers.js'
import { waitFor } from '../../test-utils/wait.js'

const dirs: string[] = []
async function journalPath(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'botmesh-file-'))
  dirs.push(dir)
  return join(dir, 'durable.json')
}
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })))
})

const put = (key: string, expectVersion = 0, fields: Partial<KvOp & { op: 'put' }> = {}): KvOp => ({
  op: 'put',
  collection: 'inbox',
  key,
  expectVersion,
  value: { key, expectVersion },
  state: 'pending',
  stateTime: 1,
  due: null,
  ...fields,
})

async function dump(durability: FileDurability): Promise<string> {
  const out: unknown[] = []
  for (const scope of (await durability.scopes()).sort()) {
    const kv = durability.kv.scope(scope)
    for (const state of ['pending', 'done']) out.push(scope, state, await kv.list('inbox', { state, limit: 100_000 }))
    out.push(await kv.due('inbox', Number.MAX_SAFE_INTEGER, 100_000))
  }
  return JSON.stringify(out)
}

const MODES: Record<string, FileDurabilityOptions> = {
  snapshot: {},
  appendLog: { appendLog: true },
  'appendLog, compacting every 3': { appendLog: { compactEvery: 3 } },
}

describe('FileDurability keeps everything across a reopen', () => {
  for (const [name, options] of Object.entries(MODES)) {
    it(`${name}: entries, versions, scopes and both indexes come back, whatever mode reopens it`, async () => {
      const path = await journalPath()
      const first = await FileDurability.open(path, options)
      const a = first.kv.scope('bot-a')
      const b = first.kv.scope('bot-b')
      await a.write([put('m1'), put('m2', 0, { state: 'done', stateTime: 5 })])
      await b.write([put('m1', 0, { due: 50 })])
      await a.write([put('m1', 1, { due: 10, stateTime: 3 })])
      await a.write([{ op: 'delete', collection: 'inbox', key: 'm2', expectVersion: 1 }])
      assert.equal(await b.purge('inbox', 'pending', 10, 10), 1)
      await b.write([put('m3', 0, { value: { text: 'héllo 👋\n"quoted"', big: 'x'.repeat(100_000) } })])
      const before = await dump(first)
      await first.close()
      for (const reopenWith of Object.values(MODES)) {
        const again = await FileDurability.open(path, reopenWith)
        assert.equal(await dump(again), before)
        await again.close()
      }
    })
  }
})

describe('group commit', () => {
  it('appendLog: concurrent writes share one append and one fsync', async () => {
    const fs = new CountingFs(nodeFileSystem)
    const durability = await FileDurability.open(await journalPath(), { appendLog: true, fs })
    await durability.kv.write([put('warm')])
    fs.reset()
    const results = await Promise.all(Array.from({ length: 50 }, (_, n) => durability.kv.write([put(`m${n}`)])))
    assert.ok(results.every(([result]) => result!.ok))
    assert.equal(fs.count('sync'), 1, 'one fsync for 50 concurrent writes')
    assert.equal(fs.count('write'), 1, 'one append for 50 concurrent writes')
    assert.equal(durability.stats().logRecords, 51, 'one log record per write')
    await durability.close()
  })

  it('snapshot: concurrent writes share one snapshot rewrite', async () => {
    const fs = new CountingFs(nodeFileSystem)
    const durability = await FileDurability.open(await journalPath(), { fsync: true, fs })
    await Promise.all(Array.from({ length: 50 }, (_, n) => durability.kv.write([put(`m${n}`)])))
    assert.equal(fs.count('rename'), 1)
    await durability.close()
  })
})

describe('appendLog compaction and write cost', () => {
  it('folds the log into the snapshot every compactEvery records, and on close', async () => {
    const path = await journalPath()
    const durability = await FileDurability.open(path, { appendLog: { compactEvery: 5 } })
    for (let n = 0; n < 7; n++) await durability.kv.write([put(`m${n}`)])
    await durability.kv.flush()
    assert.equal(durability.stats().logRecords, 2, 'the 5th write triggered a fold')
    assert.equal(durability.stats().logSeq, 5)
    await durability.close()
    await expect(stat(`${path}.log`)).rejects.toThrow(/ENOENT/)
    const reopened = await FileDurability.open(path, { appendLog: true })
    assert.equal((await reopened.kv.list('inbox', { state: 'pending', limit: 100 })).length, 7)
    assert.equal(reopened.stats().logSeq, 7)
    await reopened.close()
  })

  it('writes go on while a fold writes the snapshot; the log then keeps only the records appended meanwhile', async () => {
    const path = await journalPath()
    const fs = new FailingFs(nodeFileSystem)
    let release!: () => void
    const held = fs.holdNext('sync', '.tmp-', new Promise<void>((resolve) => (release = resolve)))
    const durability = await FileDurability.open(path, { appendLog: { compactEvery: 5 }, fs })
    for (let n = 0; n < 5; n++) await durability.kv.write([put(`m${n}`)])
    await held // the fold the 5th write started holds at its snapshot's fsync
    // Before, the fold was a commit of its own: these writes waited for the whole snapshot.
    for (let n = 5; n < 8; n++) await durability.kv.write([put(`m${n}`)])
    assert.equal(durability.stats().logRecords, 8, 'nothing was dropped from the log yet')
    release()
    await durability.kv.flush()
    assert.deepEqual(
      { logRecords: durability.stats().logRecords, logSeq: durability.stats().logSeq },
      { logRecords: 3, logSeq: 5 },
      'the log holds the 3 records appended during the fold',
    )
    assert.deepEqual(
      (await readdir(join(path, '..'))).filter((name) => name.includes('.tmp-')),
      [],
    )
    await durability.kv.write([put('m8')])
    await durability.close()
    const reopened = await FileDurability.open(path, { appendLog: true })
    assert.equal((await reopened.kv.list('inbox', { state: 'pending', limit: 100 })).length, 9)
    await reopened.close()
  })

  it('a log that cannot be replaced after a fold keeps every record; replaced but not durably, the journal refuses more writes', async () => {
    for (const failing of ['write', 'syncDirectory'] as const) {
      const path = await journalPath()
      const fs = new FailingFs(nodeFileSystem)
      let release!: () => void
      const held = fs.holdNext('sync', 'durable.json.tmp-', new Promise<void>((resolve) => (release = resolve)))
      const durability = await FileDurability.open(path, { appendLog: { compactEvery: 5 }, fs })
      for (let n = 0; n < 5; n++) await durability.kv.write([put(`m${n}`)])
      await held
      await durability.kv.write([put('m5')])
      // The log's replacement: its temp's write fails (nothing renamed), or the directory fsync after its rename.
      // Held at the step before the failing one (reading the log, fsyncing its temp), so nothing earlier fails instead.
      const [heldOperation, heldPath] = failing === 'write' ? ['readFile', 'durable.json.log'] : ['sync', 'durable.json.log.tmp-']
      let releaseLog!: () => void
      const logHeld = fs.holdNext(heldOperation, heldPath, new Promise<void>((resolve) => (releaseLog = resolve)))
      release()
      await logHeld
      fs.failNext(failing, failing === 'write' ? 'durable.json.log.tmp-' : '')
      releaseLog()
      await durability.kv.flush()
      if (failing === 'write') {
        assert.equal(durability.stats().logRecords, 6, 'the log kept every record')
        await durability.kv.write([put('m6')])
        await durability.close()
      } else {
        await expect(durability.kv.write([put('m6')])).rejects.toBeInstanceOf(JournalUnavailableError)
        await durability.close().catch(() => {})
      }
      const reopened = await FileDurability.open(path, { appendLog: true })
      const expected = failing === 'write' ? 7 : 6
      assert.equal((await reopened.kv.list('inbox', { state: 'pending', limit: 100 })).length, expected, failing)
      await reopened.close()
    }
  })

  it('folds once the log holds compactBytes', async () => {
    const durability = await FileDurability.open(await journalPath(), { appendLog: { compactBytes: 2_000 } })
    for (let n = 0; n < 10; n++) await durability.kv.write([put(`m${n}`, 0, { value: 'v'.repeat(500) })])
    await durability.kv.flush()
    assert.ok(durability.stats().logBytes < 2_000 + 700, `log bytes ${durability.stats().logBytes}`)
    assert.ok(durability.stats().logSeq > 0, 'a fold happened')
    await durability.close()
  })

  it('a write appends the same bytes at 1,000 and at 20,000 entries, and rewrites no snapshot (I13)', async () => {
    const fs = new CountingFs(nodeFileSystem)
    const durability = await FileDurability.open(await journalPath(), { appendLog: { compactEvery: 1_000_000, compactBytes: 1 << 30 }, fs })
    const perWrite: number[] = []
    for (const size of [1_000, 20_000]) {
      for (let n = durability.stats().entries; n < size; n += 500) {
        await durability.kv.write(Array.from({ length: 500 }, (_, i) => put(`bulk${n + i}`)))
      }
      fs.reset()
      for (let n = 0; n < 20; n++) await durability.kv.write([put(`probe-${size}-${n}`)])
      assert.equal(fs.bytesToSnapshot, 0)
      perWrite.push(fs.bytesToLog / 20)
    }
    assert.ok(Math.abs(perWrite[1]! - perWrite[0]!) <= 8, `bytes per write: ${perWrite.join(' vs ')}`)
    await durability.close()
  })

  it('the first fold after a reopen frames the entries it read from the snapshot again instead of encoding them', async () => {
    const path = await journalPath()
    const first = await FileDurability.open(path, { appendLog: true })
    await first.kv.write(Array.from({ length: 200 }, (_, n) => put(`m${n}`)))
    await first.close() // folds: the snapshot holds the 200 entries
    const before = await readFile(path)
    const reopened = await FileDurability.open(path, { appendLog: true })
    await reopened.kv.write([put('m0', 1, { state: 'done' })])
    // Encoding an entry is a JSON.stringify of its [scope, collection, entry] line; a fold that
    // reused nothing would make 200 of them. Only those count: anything else in the process may
    // stringify while the fold waits on the disk.
    const stringify = vi.spyOn(JSON, 'stringify')
    let encoded: number
    try {
      await reopened.compact()
      encoded = stringify.mock.calls.filter(([value]) => Array.isArray(value) && value.length === 3).length
    } finally {
      stringify.mockRestore()
    }
    assert.ok(encoded <= 3, `entries encoded by the fold: ${encoded}`)
    await reopened.close()
    // The reused lines are the very bytes read: the new snapshot is the old one but for m0 and the header.
    const after = (await readFile(path, 'utf8')).split('\n')
    const old = before.toString('utf8').split('\n')
    assert.equal(after.length, old.length)
    const changed = after.flatMap((line, n) => (line === old[n] ? [] : [n]))
    assert.deepEqual(changed.length, 2, `changed lines: ${changed.join(', ')}`)
    const again = await FileDurability.open(path, { appendLog: true })
    assert.equal((await again.kv.list('inbox', { state: 'pending', limit: 1_000 })).length, 199)
    assert.equal((await again.kv.list('inbox', { state: 'done', limit: 1_000 })).length, 1)
    await again.close()
  })

  it('compact() folds now; a no-op in snapshot mode', async () => {
    const logged = await FileDurability.open(await journalPath(), { appendLog: true })
    await logged.kv.write([put('a')])
    const logBytes = logged.stats().logBytes
    assert.ok(logBytes > 0)
    assert.deepEqual(await logged.compact(), { folded: 1, logBytes, entries: 1, logSeq: 1 })
    assert.equal(logged.stats().logBytes, 0)
    await logged.close()
    const snapshot = await FileDurability.open(await journalPath())
    assert.equal((await snapshot.compact()).folded, 0)
    await snapshot.close()
  })
})

describe('lifecycle', () => {
  it('start and stop are counted and keep the journal open; close releases it', async () => {
    const path = await journalPath()
    const durability = await FileDurability.open(path)
    assert.equal(durability.kind, 'file')
    assert.equal(durability.shared, false)
    assert.equal(durability.scoped, true)
    await durability.start()
    await durability.start()
    await durability.stop()
    await durability.stop()
    await durability.kv.write([put('after-stop')])
    await durability.start()
    await durability.stop()
    await durability.close()
    const again = await FileDurability.open(path)
    assert.equal((await again.kv.get('inbox', ['after-stop']))[0]?.version, 1)
    await again.close()
  })

  it('removes temp files a crashed writer left, and creates nothing before the first write', async () => {
    const path = await journalPath()
    const dir = join(path, '..')
    await writeFile(`${path}.tmp-999-1`, 'half a snapshot')
    const durability = await FileDurability.open(path)
    assert.deepEqual((await readdir(dir)).sort(), ['durable.json.lock'])
    await durability.close()
    assert.deepEqual(await readdir(dir), [])
  })

  it('refuses bad options with a ConfigError', async () => {
    await expect(FileDurability.open(await journalPath(), { appendLog: { compactEvery: 0 } })).rejects.toBeInstanceOf(ConfigError)
    await expect(FileDurability.open(await journalPath(), { appendLog: { compactBytes: -1 } })).rejects.toBeInstanceOf(ConfigError)
  })
})

describe('failed commits and visibility', () => {
  for (const [name, options, failing] of [
    ['appendLog', { appendLog: true }, ['sync', '.log']],
    ['snapshot', { fsync: true }, ['rename', 'durable.json']],
  ] as const) {
    it(`${name}: a failed commit is rolled back with the writes queued behind it, and later writes work`, async () => {
      const path = await journalPath()
      const fs = new FailingFs(nodeFileSystem)
      const durability = await FileDurability.open(path, { ...options, fs })
      await durability.kv.write([put('a')])
      let release!: () => void
      fs.failNext(failing[0], failing[1], { after: new Promise<void>((resolve) => (release = resolve)) })
      const failed = durability.kv.write([put('b'), put('a', 1)])
      await waitFor(() => durability.stats().entries === 2, { message: 'the failing write applied in memory, its commit in flight' })
      // Applied on top of the failing write (it updates b), queued behind its commit: it must go too.
      const behind = durability.kv.write([put('b', 1)])
      const readDuring = durability.kv.get('inbox', ['b'])
      assert.equal(durability.stats().entries, 2)
      release()
      assert.deepEqual(await readDuring, [undefined], 'a read that saw the failed write is made again after the roll-back')
      await expect(failed).rejects.toBeInstanceOf(JournalUnavailableError)
      await expect(behind).rejects.toMatchObject({ code: 'JOURNAL_UNAVAILABLE', retryable: true })
      assert.deepEqual(
        (await durability.kv.get('inbox', ['a', 'b'])).map((entry) => entry?.version),
        [1, undefined],
      )
      await durability.kv.write([put('c'), put('a', 1)])
      await durability.close()
      const reopened = await FileDurability.open(path)
      assert.deepEqual(
        (await reopened.kv.get('inbox', ['a', 'b', 'c'])).map((entry) => entry?.version),
        [2, undefined, 1],
      )
      await reopened.close()
    })
  }

  it('snapshot: a directory fsync failing after the rename breaks the journal until it is reopened', async () => {
    const path = await journalPath()
    const fs = new FailingFs(nodeFileSystem)
    const durability = await FileDurability.open(path, { fsync: true, fs })
    await durability.kv.write([put('a')])
    fs.failNext('syncDirectory', join(path, '..'))
    await expect(durability.kv.write([put('b')])).rejects.toThrow(/outcome is unknown/)
    await expect(durability.kv.write([put('c')])).rejects.toBeInstanceOf(JournalUnavailableError)
    await expect(durability.kv.get('inbox', ['a'])).rejects.toThrow(/reopen the journal/)
    await durability.close()
    const reopened = await FileDurability.open(path)
    assert.deepEqual(
      (await reopened.kv.get('inbox', ['a', 'b', 'c'])).map((entry) => entry?.version),
      [1, 1, undefined],
      'the renamed snapshot is the file',
    )
    await reopened.close()
  })

  it('appendLog: a failed append that cannot be cut back breaks the journal; the next open reads the disk', async () => {
    const path = await journalPath()
    const fs = new FailingFs(nodeFileSystem)
    const durability = await FileDurability.open(path, { appendLog: true, fs })
    await durability.kv.write([put('a')])
    fs.failNext('sync', '.log')
    fs.failNext('truncate', '.log')
    await expect(durability.kv.write([put('b')])).rejects.toThrow(/outcome is unknown/)
    await expect(durability.kv.write([put('c')])).rejects.toThrow(/could not be cut back/)
    await durability.close()
    const reopened = await FileDurability.open(path, { appendLog: true })
    assert.deepEqual(
      (await reopened.kv.get('inbox', ['a', 'c'])).map((entry) => entry?.version),
      [1, undefined],
    )
    await reopened.close()
  })

  it('a conflict or a read that sees a write in flight waits for its commit (I4)', async () => {
    const fs = new FailingFs(nodeFileSystem)
    const durability = await FileDurability.open(await journalPath(), { appendLog: true, fs })
    await durability.kv.write([put('warm')])
    let release!: () => void
    const held = fs.holdNext('sync', '.log', new Promise<void>((resolve) => (release = resolve)))
    const settled: string[] = []
    const first = durability.kv.write([put('m')]).then(() => settled.push('write'))
    const conflict = durability.kv.write([put('m')]).then(([result]) => settled.push(`conflict ${result!.ok}`))
    const read = durability.kv.get('inbox', ['m']).then(([entry]) => settled.push(`read v${entry?.version}`))
    await held
    // The commit is in flight; a read or a conflict that did not wait for it would settle within a few turns.
    await new Promise((resolve) => setTimeout(resolve, 20))
    assert.deepEqual(settled, [], 'nothing resolves while the commit holding the insert is in flight')
    release()
    await Promise.all([first, conflict, read])
    assert.deepEqual(settled.sort(), ['conflict false', 'read v1', 'write'])
    await durability.close()
  })
})
