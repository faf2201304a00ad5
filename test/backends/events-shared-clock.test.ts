/**
 * Leases of the shared file journal across a wall clock step. Every process sharing the file
 * judges leases by the host clock anchored beside it (`<file>.clock`: the host's monotonic clock
 * from the boot's anchor), so a step of one process's wall clock, or of the host's, neither ends a
 * live lease early nor lengthens one. Before, each process read its own `Date.now()`: after a
 * +120 s step another worker claimed a record under a live 60 s lease.
 *
 * The anchor store is checked with injected sources (no real time); the journal with vitest's fake
 * Date stepped (timers real, never the host's clock), the host clock reading the real monotonic
 * clock and boot id (Linux).
 */
import { readFileSync, utimesSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { clockPathOf, fileAnchorStore } from '../../src/crash-safe-file/clock-anchor-file.js'
import { nodeFileSystem } from '../../src/crash-safe-file/fs.js'
import { HOST_CLOCK_LIMITS, HostClock, type HostClockSources } from '../../src/crash-safe-file/host-clock.js'
import { JournalUnavailableError } from '../../src/core/errors/errors.js'
import { mutexPathOf } from '../../src/events/mutex-file.js'
import { SharedFileEventJournal, type MutexBreak } from '../../src/events/index.js'
import { removeDirs, tempDir } from './events-kit.js'

const STEP_MS = 120_000
const LEASE_MS = 60_000
const WALL_AT_BOOT = 1_800_000_000_000

afterAll(removeDirs)
afterEach(() => vi.useRealTimers())

/** A process on a host whose monotonic clock and boot id the test sets: its wall clock steps alone. */
function processOn(host: { monotonicMs: number; bootId: string }) {
  const wall = { stepMs: 0 }
  const sources: HostClockSources = {
    wall: () => WALL_AT_BOOT + host.monotonicMs + wall.stepMs,
    monotonic: () => host.monotonicMs,
    bootId: () => host.bootId,
  }
  return { sources, step: (ms: number) => (wall.stepMs += ms) }
}

describe('the host clock beside a journal file', () => {
  it('a process stepped ±120 s reads the anchor of the first one; a new boot anchors again; few boots are kept', async () => {
    const path = join(tempDir(), 'events.json')
    const host = { monotonicMs: 7_000.5, bootId: 'boot-1' }
    const a = processOn(host)
    const b = processOn(host)
    const clockA = new HostClock(fileAnchorStore(nodeFileSystem, path), a.sources)
    await clockA.ready()
    const takenAt = clockA.now()
    for (const step of [STEP_MS, -2 * STEP_MS]) {
      b.step(step)
      const clockB = new HostClock(fileAnchorStore(nodeFileSystem, path), b.sources)
      await clockB.ready()
      expect(clockB.now()).toBe(takenAt)
    }
    host.monotonicMs += 10_000
    a.step(STEP_MS)
    expect(clockA.now()).toBe(takenAt + 10_000)

    for (let boot = 2; boot <= HOST_CLOCK_LIMITS.anchorsKept + 2; boot++) {
      host.bootId = `boot-${boot}`
      host.monotonicMs = 1_000
      const clock = new HostClock(fileAnchorStore(nodeFileSystem, path), processOn(host).sources)
      await clock.ready()
      expect(clock.now()).toBe(WALL_AT_BOOT + 1_000)
    }
    const kept = Object.keys((JSON.parse(readFileSync(clockPathOf(path), 'utf8')) as { anchors: object }).anchors)
    expect(kept).toHaveLength(HOST_CLOCK_LIMITS.anchorsKept)
    expect(kept.at(-1)).toBe(`boot-${HOST_CLOCK_LIMITS.anchorsKept + 2}`)
  })
})

describe('SharedFileEventJournal across a step of the wall clock', () => {
  for (const step of [STEP_MS, -STEP_MS]) {
    it(`${step > 0 ? '+' : '−'}120 s: a live lease is neither claimed by another process nor lengthened`, async () => {
      vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true })
      const path = join(tempDir(), 'events.json')
      const first = await SharedFileEventJournal.open(path)
      const second = await SharedFileEventJournal.open(path)
      try {
        await first.append({ id: 'job', eventType: 'job' })
        const [held] = await first.claim({ owner: 'w1', leaseMs: LEASE_MS })
        vi.setSystemTime(Date.now() + step)
        const left = held!.lease!.expiresAt - (await second.now())
        expect(left).toBeGreaterThan(0)
        expect(left).toBeLessThanOrEqual(LEASE_MS)
        expect(await second.claim({ owner: 'w2', leaseMs: LEASE_MS })).toEqual([])
      } finally {
        await first.close()
        await second.close()
      }
    })
  }

  it('a clock of the caller’s is used as it is, and no clock file is written', async () => {
    const path = join(tempDir(), 'events.json')
    const journal = await SharedFileEventJournal.open(path, { now: () => 42 })
    try {
      expect(await journal.now()).toBe(42)
      await journal.append({ id: 'job', eventType: 'job' })
      expect(() => readFileSync(clockPathOf(path))).toThrow(/ENOENT/)
    } finally {
      await journal.close()
    }
  })
})

describe('the mutex of a shared file across a step of the wall clock', () => {
  it('+120 s: a live holder that keeps the mutex fresh is waited for, never broken', async () => {
    const path = join(tempDir(), 'events.json')
    const mutex = mutexPathOf(path)
    // A live holder (the parent process) refreshing its mutex's mtime on the host's real clock.
    writeFileSync(mutex, JSON.stringify({ pid: process.ppid, host: hostname(), takenAt: 0, nonce: 'other' }))
    const realNow = () => new Date(performance.timeOrigin + performance.now())
    const fresh = setInterval(() => utimesSync(mutex, realNow(), realNow()), 20)
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true })
    vi.setSystemTime(Date.now() + STEP_MS)
    const breaks: MutexBreak[] = []
    try {
      await expect(SharedFileEventJournal.open(path, { staleLockMs: 200, onMutexBroken: (info) => breaks.push(info) })).rejects.toThrow(
        JournalUnavailableError,
      )
    } finally {
      clearInterval(fresh)
    }
    expect(breaks).toEqual([])
  })
})
