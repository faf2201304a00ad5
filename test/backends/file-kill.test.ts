/**
 * SIGKILL in the middle of writes: a child process writes in a loop (snapshot rewrites of a
 * growing journal, or log appends with frequent compaction) and is killed at a seeded moment. The
 * reopened journal holds exactly a prefix of the writes: every acknowledged one, perhaps the one in
 * flight, never a part of one, and never an empty or partial snapshot.
 */
import assert from 'node:assert/strict'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, it } from 'vitest'
import { FileDurability, type FileDurabilityOptions } from '../../src/backends/file/index.js'
import { startJournalChild } from './file-child.js'

const dirs: string[] = []
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })))
})

const MODES: { name: string; options: FileDurabilityOptions & { paddingBytes: number } }[] = [
  { name: 'snapshot', options: { paddingBytes: 4_000 } },
  { name: 'snapshot, fsync', options: { fsync: true, paddingBytes: 4_000 } },
  { name: 'appendLog, compacting every 16', options: { appendLog: { compactEvery: 16 }, paddingBytes: 4_000 } },
]
const RUNS_PER_MODE = 6

describe('FileDurability killed with SIGKILL mid-write', () => {
  for (const mode of MODES) {
    it(`${mode.name}: reopening gives the old or the new state (${RUNS_PER_MODE} seeded kills)`, async () => {
      const figures = { runs: 0, inFlightLanded: 0, tempFilesLeft: 0, acknowledged: 0 }
      for (let seed = 1; seed <= RUNS_PER_MODE; seed++) {
        const dir = await mkdtemp(join(tmpdir(), 'botmesh-kill-'))
        dirs.push(dir)
        const path = join(dir, 'durable.json')
        const child = startJournalChild('write-loop', path, mode.options)
        const target = 10 + ((seed * 37) % 60)
        await child.waitForLine((line) => line.startsWith('ack ') && Number(line.slice(4)) >= target, 30_000)
        // A seeded pause of 0..7 ms so the kill lands at different points of a write.
        const pauseUntil = performance.now() + ((seed * 13) % 8)
        while (performance.now() < pauseUntil) {
          // spin: a timer would be too coarse
        }
        child.process.kill('SIGKILL')
        const exit = await child.exited
        assert.equal(exit.signal, 'SIGKILL', `the child died of the kill, not of an error: ${child.stderr()}`)
        await new Promise((resolve) => setImmediate(resolve))
        const acknowledged = Math.max(...child.lines.filter((line) => line.startsWith('ack ')).map((line) => Number(line.slice(4))))
        figures.tempFilesLeft += (await readdir(dir)).filter((name) => name.includes('.tmp-')).length

        const { paddingBytes: _padding, ...options } = mode.options
        const reopened = await FileDurability.open(path, options)
        try {
          const [counter] = await reopened.kv.get('outbox', ['counter'])
          const version = counter?.version ?? 0
          assert.ok(
            version === acknowledged || version === acknowledged + 1,
            `seed ${seed}: ${version} writes found, ${acknowledged} acknowledged`,
          )
          const keys = Array.from({ length: version + 2 }, (_, n) => `k${n + 1}`)
          const entries = await reopened.kv.get('inbox', keys)
          entries.forEach((entry, n) => {
            if (n < version) assert.equal((entry?.value as { n: number } | undefined)?.n, n + 1, `seed ${seed}: write ${n + 1} is whole`)
            else assert.equal(entry, undefined, `seed ${seed}: no part of write ${n + 1} beyond the counter`)
          })
          assert.deepEqual(
            (await readdir(dir)).filter((name) => name.includes('.tmp-')),
            [],
            'stray temp files are removed on open',
          )
          figures.runs++
          figures.acknowledged += acknowledged
          if (version === acknowledged + 1) figures.inFlightLanded++
        } finally {
          await reopened.close()
        }
      }
      console.log(`SIGKILL, ${mode.name}: ${JSON.stringify(figures)}`)
      // Six child processes, each started, loaded and killed: a few seconds each on a busy host.
    }, 180_000)
  }
})
