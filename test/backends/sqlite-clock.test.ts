/**
 * Leases on SQLite across a wall clock step. Every process sharing the file judges leases by the
 * host clock anchored in the file (anchor + the host's monotonic clock), so a step of one process's
 * wall clock, or of the host's, neither ends a live lease early nor lengthens one. Before, each
 * process read its own `Date.now()`: a process stepped +120 s took another's live 60 s lease, one
 * stepped −120 s wrote leases that had already ended.
 *
 * "Processes" here are SQLiteKv instances with their own connection and their own wall clock over
 * one host (a shared monotonic clock and boot id), all injected: no real time is read.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { HostClockSources } from '../../src/crash-safe-file/host-clock.js'
import { SQLiteDurability, SQLiteKv } from '../../src/backends/sqlite/index.js'
import { tempDir } from '../fixtures/sqlite/temp.js'

const STEP_MS = 120_000
const LEASE_MS = 60_000
const WALL_AT_BOOT = 1_800_000_000_000

const temps: ReturnType<typeof tempDir>[] = []
const opened: { stop(): Promise<void> }[] = []
afterEach(async () => {
  vi.useRealTimers()
  for (const thing of opened.splice(0)) await thing.stop()
  for (const temp of temps.splice(0)) temp.remove()
})

function newFile(): string {
  const temp = tempDir()
  temps.push(temp)
  return temp.file()
}

/** One host: a monotonic clock every process reads, a boot id, and time that moves only when told. */
function host(bootId: string | null = 'boot-1') {
  const state = { monotonicMs: 5_000.25, bootId }
  return {
    state,
    elapse(ms: number) {
      state.monotonicMs += ms
    },
    /** A process's sources: the host's monotonic clock and boot id, a wall clock of its own (steppable). */
    process() {
      const wall = { stepMs: 0 }
      const sources: HostClockSources = {
        wall: () => WALL_AT_BOOT + state.monotonicMs + wall.stepMs,
        monotonic: () => state.monotonicMs,
        bootId: () => state.bootId ?? undefined,
      }
      return { sources, step: (ms: number) => (wall.stepMs += ms) }
    },
  }
}

async function open(file: string, sources: HostClockSources): Promise<SQLiteKv> {
  const kv = new SQLiteKv({ file, clockSources: sources })
  opened.push(kv)
  await kv.start()
  return kv
}

describe('SQLite leases on the host clock', () => {
  for (const step of [STEP_MS, -STEP_MS]) {
    const sign = step > 0 ? '+' : '−'
    it(`${sign}120 s on one process's wall clock: a live lease is neither ended early nor lengthened`, async () => {
      const file = newFile()
      const machine = host()
      const a = machine.process()
      const b = machine.process()
      const kvA = await open(file, a.sources)
      const kvB = await open(file, b.sources)
      const takenAt = await kvA.now()
      const expiresAt = takenAt + LEASE_MS
      machine.elapse(10_000)
      a.step(step)
      // Both judge the lease 10 s into its 60 s, whoever stepped.
      expect(await kvB.now()).toBe(takenAt + 10_000)
      expect(await kvA.now()).toBe(takenAt + 10_000)
      // A lease the stepped process takes now lasts exactly what it asked, by the other's clock too.
      const renewedUntil = (await kvA.now()) + LEASE_MS
      machine.elapse(LEASE_MS - 1)
      expect(await kvB.now()).toBeLessThan(renewedUntil)
      machine.elapse(1)
      expect(await kvB.now()).toBe(renewedUntil)
      expect(expiresAt).toBeLessThan(renewedUntil)
    })

    it(`${sign}120 s before a process opens the file: it still reads the clock of the process before it`, async () => {
      const file = newFile()
      const machine = host()
      const a = machine.process()
      const b = machine.process()
      const kvA = await open(file, a.sources)
      const takenAt = await kvA.now()
      b.step(step)
      const kvB = await open(file, b.sources)
      expect(await kvB.now()).toBe(takenAt)
    })
  }

  it('two first processes of a boot get one anchor; times are whole ms', async () => {
    const file = newFile()
    const machine = host()
    const a = machine.process()
    const b = machine.process()
    b.step(STEP_MS)
    const [kvA, kvB] = await Promise.all([open(file, a.sources), open(file, b.sources)])
    const [nowA, nowB] = await Promise.all([kvA.now(), kvB.now()])
    expect(nowA).toBe(nowB)
    expect(Number.isInteger(nowA)).toBe(true)
  })

  it('a new boot anchors again (its monotonic clock restarted); the old boot kept its own', async () => {
    const file = newFile()
    const machine = host()
    const before = machine.process()
    const kvBefore = await open(file, before.sources)
    const lastBeforeReboot = await kvBefore.now()
    await kvBefore.stop()
    machine.state.bootId = 'boot-2'
    machine.state.monotonicMs = 1_000
    const after = machine.process()
    // The new boot's wall clock: 10 minutes on from the last time of the old boot.
    after.step(lastBeforeReboot + 600_000 - (WALL_AT_BOOT + 1_000))
    const kvAfter = await open(file, after.sources)
    expect(await kvAfter.now()).toBe(lastBeforeReboot + 600_000)
  })

  it('where the host names no boot, the clock is the wall clock', async () => {
    const file = newFile()
    const machine = host(null)
    const a = machine.process()
    const kvA = await open(file, a.sources)
    const before = await kvA.now()
    a.step(STEP_MS)
    expect(await kvA.now()).toBe(before + STEP_MS)
  })

  it('now() before start() says NOT_STARTED', async () => {
    const kv = new SQLiteKv({ file: newFile(), clockSources: host().process().sources })
    await expect(kv.now()).rejects.toMatchObject({ code: 'NOT_STARTED' })
  })
})

describe('SQLiteDurability across a step of the host wall clock', () => {
  // The wall clock stepped is vitest's fake Date of this process (timers stay real), never the host's;
  // the host clock reads the real monotonic clock and boot id (Linux).
  for (const step of [STEP_MS, -STEP_MS]) {
    it(`${step > 0 ? '+' : '−'}120 s: now() of the other process moves with real time, not with the step`, async () => {
      vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true })
      const file = newFile()
      const a = new SQLiteDurability({ file })
      const b = new SQLiteDurability({ file })
      opened.push(a, b)
      await a.start()
      await b.start()
      const takenAt = await a.now()
      vi.setSystemTime(Date.now() + step)
      const seen = await b.now()
      // Not ended early (+), not lengthened (−): a lease taken before the step is still within its 60 s.
      expect(seen).toBeGreaterThanOrEqual(takenAt)
      expect(seen).toBeLessThan(takenAt + LEASE_MS)
    })
  }
})
