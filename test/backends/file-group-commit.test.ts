/**
 * Group commit in appendLog mode under a steady stream of writers: the writes made while one
 * append's fsync runs all go into the next append, which starts as soon as that fsync returns;
 * and the writes the callers of a commit make as soon as it answers them go in one append, not
 * the first alone and the rest behind it.
 */
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, it } from 'vitest'
import { FileDurability, nodeFileSystem } from '../../src/backends/file/index.js'
import { CountingFs, FailingFs } from './file-fs-wrappers.js'
import { inboxInsert as put } from '../../test-utils/kv-ops.js'

const dirs: string[] = []
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })))
})

describe('appendLog group commit', () => {
  it('writes made while an fsync runs share the next append and its one fsync', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'botmesh-file-'))
    dirs.push(dir)
    const counting = new CountingFs(nodeFileSystem)
    const fs = new FailingFs(counting)
    const durability = await FileDurability.open(join(dir, 'durable.json'), { appendLog: true, fs })
    await durability.kv.write([put('warm')])
    counting.reset()
    let release!: () => void
    const held = fs.holdNext('sync', '.log', new Promise<void>((resolve) => (release = resolve)))
    const first = durability.kv.write([put('first')])
    await held // the first append's fsync is running
    const behind = Array.from({ length: 8 }, (_, n) => durability.kv.write([put(`m${n}`)]))
    release()
    const results = await Promise.all([first, ...behind])
    assert.ok(results.every(([result]) => result!.ok))
    assert.equal(counting.count('sync'), 2, 'the first write alone, then the eight behind it together')
    assert.equal(counting.count('write'), 2)
    assert.equal(durability.stats().logRecords, 10, 'one log record per write')
    await durability.close()
  })

  it('the writes the callers of a commit make right away share one append and one fsync', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'botmesh-file-'))
    dirs.push(dir)
    const counting = new CountingFs(nodeFileSystem)
    const durability = await FileDurability.open(join(dir, 'durable.json'), { appendLog: true, fs: counting })
    await durability.kv.write([put('warm')])
    counting.reset()
    // Each caller writes again some promise hops after its answer, as a message's next write does
    // after passing back through the engine's layers: some paths are longer than others.
    const writeAgain = async (n: number) => {
      for (let hop = 0; hop < 10 * n; hop++) await null
      return durability.kv.write([put(`next${n}`)])
    }
    const answered = await durability.kv.write([put('answered')]).then(() => Promise.all([0, 1, 2, 3].map(writeAgain)))
    assert.ok(answered.every(([result]) => result!.ok))
    assert.equal(counting.count('sync'), 2, 'the first write, then the four its answer set going, together')
    await durability.close()
  })
})
