/**
 * The real-process crash test on FileDurability, snapshot mode and appendLog mode (compacting every
 * 8 records): a child process running the workload bot is killed with SIGKILL in the middle of a
 * handler, a send or a journal write (snapshot writes and log appends included: see the fixture),
 * then a new child with the same instanceId recovers on the same files, and the journal and the
 * channel's oracle are checked. The store is a SQLiteStore next to the journal, so flow checkpoints
 * survive the kill too. Then four runs where the kill lands, every time, at one precise point of a
 * file write, and what the kill left on disk is checked to be there before the restart tidies it.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, it } from 'vitest'
import { FileDurability } from '../../src/backends/file/index.js'
import { pick, seededRandom } from '../../src/testing/crash-matrix/random.js'
import { runProcessCrash } from '../../src/testing/process-crash/index.js'
import { describeProcessCrash } from '../../test-utils/process-crash.js'
import { fileOptions, type FileCrashArg, type HoldPoint, type LeftoverFacts } from '../fixtures/process-crash/file-backend.js'

const module = fileURLToPath(new URL('../fixtures/process-crash/file-backend.ts', import.meta.url))

/** Fresh files for one run, the backend the test opens after both children, and what each child found. */
function storage(dir: string, arg: Omit<FileCrashArg, 'file' | 'storeFile' | 'factsFile'>) {
  const files: FileCrashArg = {
    ...arg,
    file: join(dir, 'durable.json'),
    storeFile: join(dir, 'store.db'),
    factsFile: join(dir, 'facts.ndjson'),
  }
  let opened: FileDurability | undefined
  return {
    arg: files,
    // After both children: the next process on the files, taking over the lock they left.
    open: async () => (opened = await FileDurability.open(files.file, fileOptions(files))),
    close: async () => opened?.close(),
    /** What the restarted child found before it opened the journal: the killed child's leftovers. */
    leftByKill: (): LeftoverFacts | undefined =>
      readFileSync(files.factsFile, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as LeftoverFacts)[1],
  }
}

const found = new Map<string, { runs: number; tempsLeft: number; tornLogTails: number; staleLocks: number }>()

for (const mode of ['snapshot', 'appendLog'] as const) {
  const figures = { runs: 0, tempsLeft: 0, tornLogTails: 0, staleLocks: 0 }
  found.set(mode, figures)
  describeProcessCrash(`FileDurability (${mode} mode)`, {
    module,
    prepare(dir) {
      const files = storage(dir, { mode })
      return {
        arg: files.arg,
        open: files.open,
        async cleanup() {
          await files.close()
          const left = files.leftByKill()
          figures.runs++
          figures.tempsLeft += left && left.temps > 0 ? 1 : 0
          figures.tornLogTails += left?.tornLogTail ? 1 : 0
          figures.staleLocks += left?.staleLock ? 1 : 0
        },
      }
    },
  })
}

/** The first seed from 7000 whose kill waits for the 40th write marker (the kit's draw for a 'write' kill). */
const LATEST_KILL_SEED = (() => {
  for (let seed = 7000; ; seed++) if (pick(seededRandom(seed), 1, 40) === 40) return seed
})()

interface HeldRun {
  name: string
  arg: Omit<FileCrashArg, 'file' | 'storeFile' | 'factsFile'>
  policy: 'skip' | 'resend'
  /** What the kill must have left for the restart to find. */
  expect(left: LeftoverFacts): void
}

const HELD_RUNS: HeldRun[] = [
  {
    name: 'snapshot mode, half-way through writing the snapshot temp: the old snapshot stays, the partial temp is removed',
    arg: { mode: 'snapshot', holdAt: 'snapshot-write' },
    policy: 'skip',
    expect: (left) => assert.ok(left.temps > 0, 'a partial snapshot temp was left'),
  },
  {
    name: 'snapshot mode, the temp whole and not yet renamed: the old snapshot stays',
    arg: { mode: 'snapshot', holdAt: 'snapshot-rename' },
    policy: 'resend',
    expect: (left) => assert.ok(left.temps > 0, 'a whole snapshot temp was left'),
  },
  {
    name: 'appendLog mode, half-way through an append: the torn tail is cut',
    arg: { mode: 'appendLog', holdAt: 'append' },
    policy: 'skip',
    expect: (left) => assert.ok(left.tornLogTail, 'the log ended in a torn line'),
  },
  {
    name: 'appendLog mode, compaction: the new snapshot in place, the log not yet emptied: replay skips what the snapshot holds',
    arg: { mode: 'appendLog', compactEvery: 1, holdAt: 'log-truncate' },
    policy: 'resend',
    // Appends go on beside the fold, so the kill may also tear one of them (cut on open, never acknowledged).
    expect: (left) => assert.ok(left.logBytes > 0, 'the log the snapshot already folded was left'),
  },
]

describe('SIGKILL crash test: FileDurability killed at a chosen point of a file write', () => {
  for (const run of HELD_RUNS) {
    it(`${run.name} (${run.policy})`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'botmesh-file-kill-'))
      const files = storage(dir, run.arg)
      try {
        const result = await runProcessCrash({
          backendModule: module,
          backendArg: files.arg,
          openBackend: files.open,
          dir,
          seed: LATEST_KILL_SEED,
          policy: run.policy,
          killOn: 'write',
        })
        assert.equal(result.nth, 40, `seed ${LATEST_KILL_SEED} waits for the 40th write marker (the kit's draw changed?)`)
        assert.ok(result.killed, 'the first process was killed')
        const left = files.leftByKill()
        assert.ok(left, 'the restarted process noted what it found')
        run.expect(left)
        assert.deepEqual(result.problems, [], JSON.stringify(result))
        assert.deepEqual(
          readdirSync(dir).filter((name) => name.includes('.tmp-')),
          [],
          'the restart removed the stray temps',
        )
      } finally {
        await files.close()
        rmSync(dir, { recursive: true, force: true })
      }
    }, 120_000)
  }
})

afterAll(() => {
  for (const [mode, figures] of found)
    console.log(`SIGKILL FileDurability (${mode} mode), what the restart found: ${JSON.stringify(figures)}`)
})
