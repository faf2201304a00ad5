/**
 * Power loss at the DurableKv level: seeded workloads of concurrent write batches, the power cut
 * at a seeded operation (PowerLossFs), the journal reopened with the real file system. The state
 * must equal some acknowledged prefix of the writes, and with fsync on include every acknowledged
 * write; without fsync, a refusal (a JournalStateError naming the file: JOURNAL_CORRUPT or APPEND_LOG_CORRUPT) is the only other outcome.
 */
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { FileDurability, nodeFileSystem, type FileDurabilityOptions } from '../../src/backends/file/index.js'
import { JournalStateError } from '../../src/core/errors/errors.js'
import { PowerLossFs } from '../../src/testing/power-loss-fs.js'
import { applyCall, candidateStates, planGroup, readState, runCall, type Call, type ModelState } from './file-workload.js'

const dirs: string[] = []
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'botmesh-power-'))
  dirs.push(dir)
  return dir
}
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })))
})

describe('PowerLossFs', () => {
  it('drops, keeps or tears writes not fsynced, and keeps what was fsynced', async () => {
    const dir = await tempDir()
    const outcomes = new Set<string>()
    for (let seed = 1; seed <= 30; seed++) {
      const file = join(dir, `f${seed}`)
      const fs = new PowerLossFs(nodeFileSystem, { seed })
      await fs.mkdir(dir, 0o700)
      const handle = await fs.open(file, 'update')
      await handle.write(Buffer.from('durable\n'), 0)
      await handle.sync()
      await fs.syncDirectory(dir)
      await handle.write(Buffer.from('volatile\n'), 8)
      await fs.powerLoss()
      await expect(handle.sync()).rejects.toThrow(/power loss/)
      await handle.close().catch(() => {})
      const content = (await readFile(file)).toString()
      assert.ok(content.startsWith('durable\n'), `seed ${seed}: the fsynced part survives: ${JSON.stringify(content)}`)
      assert.ok('volatile\n'.startsWith(content.slice(8)), `seed ${seed}: the rest is a prefix of the write: ${JSON.stringify(content)}`)
      outcomes.add(content.length === 8 ? 'dropped' : content.length === 17 ? 'kept' : 'torn')
    }
    assert.deepEqual([...outcomes].sort(), ['dropped', 'kept', 'torn'])
  })

  it('undoes a rename whose directory was not fsynced, and keeps one that was', async () => {
    const dir = await tempDir()
    for (const syncDirectory of [false, true]) {
      const [target, temp] = [join(dir, `t-${syncDirectory}`), join(dir, `t-${syncDirectory}.tmp`)]
      await writeFile(target, 'old')
      const fs = new PowerLossFs(nodeFileSystem, { seed: 7 })
      const handle = await fs.open(temp, 'replace')
      await handle.write(Buffer.from('new'), 0)
      await handle.sync()
      await handle.close()
      await fs.rename(temp, target)
      if (syncDirectory) await fs.syncDirectory(dir)
      await fs.powerLoss()
      assert.equal((await readFile(target)).toString(), syncDirectory ? 'new' : 'old')
      await expect(readFile(temp)).rejects.toThrow(/ENOENT/)
      await expect(fs.readFile(target)).rejects.toThrow(/power loss/)
    }
  })

  it('cuts at the operation it is told, and every later call fails', async () => {
    const dir = await tempDir()
    const fs = new PowerLossFs(nodeFileSystem, { seed: 1, cutAtOperation: 3 })
    await fs.stat(dir)
    await fs.readdir(dir)
    await expect(fs.stat(dir)).rejects.toMatchObject({ code: 'EIO' })
    assert.equal(fs.lost, true)
    await fs.whenLost()
    await expect(fs.readdir(dir)).rejects.toMatchObject({ code: 'EIO' })
  })
})

interface Mode {
  name: string
  options: FileDurabilityOptions
  /** Every acknowledged write survives (fsync on, for the commits and the renames). */
  keepsAcknowledged: boolean
}

const MODES: Mode[] = [
  { name: 'appendLog, fsync', options: { appendLog: true }, keepsAcknowledged: true },
  { name: 'appendLog, fsync, compacting every 4', options: { appendLog: { compactEvery: 4 } }, keepsAcknowledged: true },
  { name: 'snapshot, fsync', options: { fsync: true }, keepsAcknowledged: true },
  { name: 'snapshot, no fsync', options: {}, keepsAcknowledged: false },
  { name: 'appendLog, no fsync, compacting every 5', options: { appendLog: { fsync: false, compactEvery: 5 } }, keepsAcknowledged: false },
]
const RUNS_PER_MODE = 16
const GROUPS = 12

interface RunFigures {
  acknowledgedKept: number
  acknowledgedLost: number
  inFlightKept: number
  refused: number
}

describe('FileDurability under power loss', () => {
  for (const mode of MODES) {
    it(`${mode.name}: reopening gives an acknowledged prefix (${RUNS_PER_MODE} seeded cuts)`, async () => {
      const figures: RunFigures = { acknowledgedKept: 0, acknowledgedLost: 0, inFlightKept: 0, refused: 0 }
      for (let seed = 1; seed <= RUNS_PER_MODE; seed++) await powerLossRun(mode, seed * 7919 + mode.name.length, figures)
      console.log(`power loss, ${mode.name}: ${RUNS_PER_MODE} runs, ${JSON.stringify(figures)}`)
      if (mode.keepsAcknowledged) assert.equal(figures.acknowledgedLost + figures.refused, 0)
    })
  }
})

/** One seeded run: a committed base, then groups of concurrent writes until the cut, then a reopen. */
async function powerLossRun(mode: Mode, seed: number, figures: RunFigures): Promise<void> {
  const plan = planRun(seed)
  // Count the operations of an uncut run, to cut somewhere inside the real one.
  const dryRun = new PowerLossFs(nodeFileSystem, { seed })
  await execute(join(await tempDir(), 'durable.json'), mode, plan, dryRun)
  const cutAtOperation = 1 + Math.floor(plan.random() * dryRun.operations)
  const path = join(await tempDir(), 'durable.json')
  const fs = new PowerLossFs(nodeFileSystem, { seed, cutAtOperation })
  const acknowledged = await execute(path, mode, plan, fs)
  if (!fs.lost) await fs.powerLoss()
  await fs.whenLost()

  let reopened: FileDurability
  try {
    reopened = await FileDurability.open(path, mode.options)
  } catch (error) {
    assert.ok(!mode.keepsAcknowledged, `seed ${seed}, cut at ${cutAtOperation}: reopen refused: ${String(error)}`)
    assert.ok(error instanceof JournalStateError && error.file.startsWith(path), `refused with the file named: ${String(error)}`)
    figures.refused++
    return
  }
  try {
    const observed = await readState(reopened.kv, plan.keys)
    const candidates = candidateStates(plan.base, plan.groups)
    const match = candidates.find((candidate) => candidate.state === observed)
    assert.ok(match, `seed ${seed}, cut at ${cutAtOperation}: the state is no prefix of the writes:\n${observed}`)
    const applied = (group: number, call: number) => group < match.groups || (group === match.groups && match.calls.includes(call))
    const keptEveryAcknowledged = acknowledged.every((calls, group) => calls.every((ok, call) => !ok || applied(group, call)))
    if (keptEveryAcknowledged) figures.acknowledgedKept++
    else figures.acknowledgedLost++
    const inFlight = plan.groups.some((calls, group) => calls.some((_, call) => applied(group, call) && !acknowledged[group]?.[call]))
    if (inFlight) figures.inFlightKept++
    if (mode.keepsAcknowledged) assert.ok(keptEveryAcknowledged, `seed ${seed}, cut at ${cutAtOperation}: an acknowledged write was lost`)
  } finally {
    await reopened.close()
  }
}

interface Plan {
  /** The model after the base (committed and closed with the real file system). */
  base: ModelState
  baseCalls: Call[]
  groups: Call[][]
  keys: string[]
  random: () => number
}

function planRun(seed: number): Plan {
  const random = seeded(seed)
  let model: ModelState = new Map()
  const baseCalls = planGroup(random, model, 'base', 3)
  for (const call of baseCalls) model = applyCall(model, call)
  const base = model
  const groups: Call[][] = []
  for (let g = 0; g < GROUPS; g++) {
    const group = planGroup(random, model, `g${g}`, 1 + Math.floor(random() * 4))
    groups.push(group)
    for (const call of group) model = applyCall(model, call)
  }
  const keys = new Set<string>()
  for (const call of [...baseCalls, ...groups.flat()]) for (const op of call.ops) keys.add(`${call.scope}|${op.collection}|${op.key}`)
  return { base, baseCalls, groups, keys: [...keys], random }
}

/** Writes the base with the real fs, then the groups through `fs` until a call fails. Returns which calls were acknowledged. */
async function execute(path: string, mode: Mode, plan: Plan, fs: PowerLossFs): Promise<boolean[][]> {
  const base = await FileDurability.open(path, mode.options)
  for (const call of plan.baseCalls) await runCall(base.kv, call)
  await base.close()
  const durability = await FileDurability.open(path, { ...mode.options, fs }).catch(() => undefined)
  const acknowledged: boolean[][] = []
  if (!durability) return acknowledged
  for (const group of plan.groups) {
    const results = await Promise.allSettled(group.map((call) => runCall(durability.kv, call)))
    acknowledged.push(results.map((result) => result.status === 'fulfilled'))
    if (results.some((result) => result.status === 'rejected')) break
  }
  await durability.close().catch(() => {}) // after a cut this fails, but releases the lock in this process
  return acknowledged
}

function seeded(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
