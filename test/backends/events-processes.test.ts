/**
 * Three processes share one SharedFileEventJournal (appendLog off and on), with this process as a
 * fourth that appends the first records and watches. One worker is killed with SIGKILL while it
 * holds the mutex, one is frozen with SIGSTOP while it holds it (and thawed once the others
 * finished), and the third holds it alive for longer than staleLockMs. Then:
 * - the mutex of the killed worker is broken as `dead`, the frozen one's as `stalled`, and the live
 *   holder's never (its heartbeat keeps it fresh);
 * - claims are exclusive: no (record, token) is claimed twice, and tokens only grow;
 * - fencing holds: each record is completed exactly once, under its last token, and the frozen
 *   worker's late completions are refused;
 * - nothing is lost: every record appended (and acknowledged) by anyone is in the journal, done.
 */
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, it } from 'vitest'
import { SharedFileEventJournal, type MutexBreak } from '../../src/events/index.js'
import { mutexPathOf } from '../../src/events/mutex-file.js'
import { waitFor } from '../../test-utils/wait.js'
import type { WorkerConfig } from '../fixtures/events/shared-worker.js'
import { removeDirs, tempDir } from './events-kit.js'

afterAll(removeDirs)

const WORKER = fileURLToPath(new URL('../fixtures/events/shared-worker.ts', import.meta.url))
const LOADER = fileURLToPath(new URL('../../test-utils/ts-loader.mjs', import.meta.url))
const SEEDED = 40
/** The live slow holder refreshes its mutex every third of this: two refreshes may come late on a busy host before it counts as stalled. */
const STALE_LOCK_MS = 3_000

interface Worker {
  name: string
  process: ChildProcess
  lines: string[]
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** Set once the process exited. */
  exit?: { code: number | null; signal: NodeJS.Signals | null }
  stderr: () => string
}

function startWorker(config: WorkerConfig, onLine: (line: string, worker: Worker) => void): Worker {
  const child = spawn(process.execPath, ['--import', LOADER, WORKER, JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  let buffered = ''
  const worker: Worker = {
    name: config.name,
    process: child,
    lines: [],
    exited: new Promise((resolve) => child.on('exit', (code, signal) => resolve((worker.exit = { code, signal })))),
    stderr: () => stderr,
  }
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4_000)))
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk
    const lines = buffered.split('\n')
    buffered = lines.pop() ?? ''
    for (const line of lines) {
      worker.lines.push(line)
      onLine(line, worker)
    }
  })
  return worker
}

/** The pid the mutex file names now, if any. */
function mutexHolder(path: string): number | undefined {
  try {
    return (JSON.parse(readFileSync(mutexPathOf(path), 'utf8')) as { pid: number }).pid
  } catch {
    return undefined
  }
}

describe('three processes on one SharedFileEventJournal', () => {
  for (const appendLog of [false, true]) {
    it(`appendLog ${appendLog ? 'on' : 'off'}: a holder killed, one frozen, one slow; claims exclusive, fencing holds, nothing lost`, async () => {
      const path = join(tempDir('botmesh-events-procs-'), 'events.json')
      const breaks: MutexBreak[] = []
      const journal = await SharedFileEventJournal.open(path, {
        appendLog,
        staleLockMs: STALE_LOCK_MS,
        onMutexBroken: (info) => breaks.push(info),
      })
      const workers: Worker[] = []
      try {
        await journal.append(Array.from({ length: SEEDED }, (_, n) => ({ id: `seed-${n}`, eventType: 'job', payload: { n } })))
        const base = { path, appendLog, staleLockMs: STALE_LOCK_MS, heartbeatMs: STALE_LOCK_MS / 3, leaseMs: 1_000, appends: 5, workMs: 15 }
        const seen = { killedHolding: 0, frozenHolding: 0 }
        // The slow worker starts only once the other two hold the mutex with claims of their own:
        // started together on a busy host, one of them could start so late that the others had
        // already taken every record, and it would never reach its hold (nor be killed or frozen).
        const startSlow = () => workers.push(startWorker({ ...base, name: 'slow', holdMs: STALE_LOCK_MS * 2, holdAfterClaims: 3 }, onLine))
        const onLine = (line: string, worker: Worker) => {
          if (!line.startsWith('HOLDING ')) return
          const pid = Number(line.slice(8))
          if (worker.name === 'killed') {
            if (mutexHolder(path) === pid) seen.killedHolding = pid
            worker.process.kill('SIGKILL')
          } else if (worker.name === 'frozen') {
            worker.process.kill('SIGSTOP')
            if (mutexHolder(path) === pid) seen.frozenHolding = pid
          }
          const holders = workers.filter((w) => w.lines.some((l) => l.startsWith('HOLDING '))).length
          if (holders === 2 && workers.length === 2) startSlow()
        }
        workers.push(
          startWorker({ ...base, name: 'killed', holdMs: 60_000 }, onLine),
          startWorker({ ...base, name: 'frozen', holdMs: 2_000, holdOn: 'append' }, onLine),
        )
        const [killed, frozen] = workers as [Worker, Worker]

        const expected = () =>
          SEEDED + workers.reduce((n, worker) => n + worker.lines.filter((line) => line.startsWith('APPENDED ')).length, 0)
        await waitFor(
          async () => workers.length === 3 && seen.frozenHolding && killed.exit && (await journal.count()).done === expected(),
          {
            timeoutMs: 60_000,
            message: 'every record done while one worker is killed and one frozen',
          },
        )
        const slow = workers[2]!
        frozen.process.kill('SIGCONT')
        const [frozenExit, slowExit, killedExit] = await Promise.all([frozen.exited, slow.exited, killed.exited])
        assert.equal(killedExit.signal, 'SIGKILL')
        assert.deepEqual(frozenExit, { code: 0, signal: null }, frozen.stderr())
        assert.deepEqual(slowExit, { code: 0, signal: null }, slow.stderr())
        assert.ok(seen.killedHolding, 'the killed worker held the mutex when it was killed')
        assert.ok(seen.frozenHolding, 'the frozen worker held the mutex when it was frozen')

        // The mutex taken over as documented: a dead holder's at once, a stalled holder's, never a live one's.
        const reported = [
          ...breaks.map((info) => ({ reason: info.reason, pid: info.pid })),
          ...workers.flatMap((worker) =>
            worker.lines
              .filter((line) => line.startsWith('BROKE '))
              .map((line) => ({ reason: line.split(' ')[1], pid: Number(line.split(' ')[2]) })),
          ),
        ]
        assert.ok(
          reported.some((b) => b.reason === 'dead' && b.pid === seen.killedHolding),
          `the killed holder's mutex was broken as dead: ${JSON.stringify(reported)}`,
        )
        assert.ok(
          reported.some((b) => b.reason === 'stalled' && b.pid === seen.frozenHolding),
          `the frozen holder's mutex was broken as stalled: ${JSON.stringify(reported)}`,
        )
        assert.ok(
          slow.lines.some((line) => line.startsWith('HOLDING ')),
          'the slow worker held the mutex past staleLockMs',
        )
        assert.ok(
          !reported.some((b) => b.pid === slow.process.pid),
          `the live slow holder's mutex was never broken: ${JSON.stringify(reported)}`,
        )

        // Claims exclusive, fencing held, nothing lost.
        const steps = workers.flatMap((worker) => worker.lines.map((line) => line.split(' ')))
        const claims = steps.filter(([kind]) => kind === 'CLAIM').map(([, id, token]) => `${id} ${token}`)
        assert.equal(new Set(claims).size, claims.length, 'no record was claimed twice under one token')
        const records = await journal.list({ limit: 10_000 })
        assert.equal(records.length, expected(), 'every appended record is in the journal')
        const done = steps.filter(([kind]) => kind === 'DONE')
        for (const record of records) {
          assert.equal(record.state, 'done', `${record.id} is done`)
          const completions = done.filter(([, id]) => id === record.id)
          assert.equal(completions.length, 1, `${record.id} was completed exactly once: ${JSON.stringify(completions)}`)
          assert.equal(Number(completions[0]![2]), record.fencingToken, `${record.id} was completed under its last token`)
        }
        // Thawed, the frozen worker's held append found its mutex taken over and wrote nothing (then
        // went again), and its completions under the tokens it held were refused.
        assert.ok(
          frozen.lines.some((line) => line.startsWith('ERROR JOURNAL_UNAVAILABLE')),
          `the frozen worker's turn was refused: ${frozen.lines.join(' | ')}`,
        )
        assert.ok(
          frozen.lines.some((line) => line.startsWith('STALE ')),
          `the frozen worker's completions were refused: ${frozen.lines.join(' | ')}`,
        )
        console.log(
          `three processes, appendLog ${appendLog ? 'on' : 'off'}: ${records.length} records, ${claims.length} claims, ` +
            `${steps.filter(([kind]) => kind === 'STALE').length} stale completions refused, ${steps.filter(([kind]) => kind === 'ERROR').length} turns refused after a lost mutex, ` +
            `mutex breaks ${JSON.stringify(reported.map((b) => b.reason))}, per worker ${JSON.stringify(Object.fromEntries(workers.map((w) => [w.name, w.lines.filter((l) => l.startsWith('DONE')).length])))}`,
        )
      } finally {
        for (const worker of workers) {
          worker.process.kill('SIGCONT')
          worker.process.kill('SIGKILL')
        }
        await journal.close()
      }
    }, 90_000)
  }
})
