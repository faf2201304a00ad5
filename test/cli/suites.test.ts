/**
 * The library's suites from the CLI: conformance and the crash matrix on throwaway instances of a
 * named backend (summary table, --json report, progress on a terminal), and bench's figures.
 */
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { botmesh, botmeshOnTerminal, jsonOf, useTempDirs } from './helpers.js'

const tempDir = useTempDirs()

interface Conformance {
  backend: string
  cases: number
  passed: number
  failed: number
  results: { name: string; ok: boolean; ms: number }[]
}

// One suite at a time, to leave CPU to the other test files (the engine cases judge leases on a clock they move, so load does not fail them).
describe('conformance on each local backend', () => {
  it.each(['memory', 'sqlite', 'file'])('--backend %s: every case passes on throwaway instances', async (backend) => {
    const result = await botmesh(['conformance', '--json', '--backend', backend])
    const report = jsonOf<Conformance>(result)
    expect(report.failed, JSON.stringify(report.results.filter((r) => !r.ok))).toBe(0)
    expect(result.code, result.stderr).toBe(0)
    expect(report.backend).toBe(backend)
    expect(report.cases).toBeGreaterThan(10)
    expect(report.results.every((r) => r.ok)).toBe(true)
  })
})

describe.concurrent('conformance', () => {
  it('a file or SQLite URL runs beside the file, in a temp dir it removes', async () => {
    const dir = tempDir()
    const result = await botmesh(['conformance', '--match', 'purge deletes', '--backend', `sqlite:${join(dir, 'bot.db')}`])
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toMatch(/conformance on sqlite:.*bot\.db: 1 passed, 0 failed, 1 cases .*in a temp dir under /)
    expect(readdirSync(dir)).toEqual([])
  })

  it('shows progress on a terminal and a summary table', async () => {
    const result = await botmeshOnTerminal(['conformance', '--match', 'scopes', '--backend', 'memory'])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/conformance.* 1 of 1: scopes keep records apart/)
    expect(result.stdout).toMatch(/scopes keep records apart[^\n]* +\S*pass/)
  })

  it('a --match that names no case is bad usage', async () => {
    const result = await botmesh(['conformance', '--match', 'no such case', '--json', '--backend', 'memory'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('no conformance case matches "no such case" (USAGE)')
    expect(result.stdout).toBe('')
  })
})

interface CrashReport {
  seed: number
  cases: number
  failed: number
  crashedAsAimed: number
  results: { name: string; ok: boolean; seed: number; crashed: boolean; lost: number; duplicated: number }[]
}

describe.concurrent('crash-matrix', () => {
  it('runs the chosen cases under one policy, with the seed for replay', async () => {
    const result = await botmesh([
      'crash-matrix',
      '--backend',
      'memory',
      '--policy',
      'resend',
      '--match',
      'outbox.markSent',
      '--seed',
      '42',
      '--random',
      '0',
      '--json',
    ])
    expect(result.code, result.stderr).toBe(0)
    const report = jsonOf<CrashReport>(result)
    expect(report.seed).toBe(42)
    expect(report.results.map((r) => r.name)).toEqual(['before outbox.markSent (resend)', 'after outbox.markSent (resend)'])
    expect(report).toMatchObject({ cases: 2, failed: 0, crashedAsAimed: 2 })
    expect(report.results.every((r) => r.lost === 0)).toBe(true)
  })

  it('--case-seed replays one random case; --random adds seeded ones', async () => {
    const random = jsonOf<CrashReport>(
      await botmesh(['crash-matrix', '--backend', 'sqlite', '--seed', '7', '--random', '2', '--match', 'random', '--json']),
    )
    expect(random.cases).toBe(2)
    expect(random.failed).toBe(0)
    const seed = random.results[0]!.seed
    const replay = await botmesh(['crash-matrix', '--backend', 'file', '--case-seed', String(seed), '--json'])
    expect(replay.code, replay.stderr).toBe(0)
    expect(jsonOf<CrashReport>(replay).results.map((r) => r.name)).toEqual([random.results[0]!.name])
  })

  it('prints a summary table', async () => {
    const result = await botmesh(['crash-matrix', '--backend', 'memory', '--policy', 'skip', '--random', '0', '--match', 'inbox.admit'])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/before inbox\.admit \(skip\)\s+pass\s+yes/)
    expect(result.stdout).toMatch(/crash matrix on memory \(seed \d+\): 2 passed, 0 failed of 2; 2 crashed as aimed/)
  })
})

interface Bench {
  messages: number
  concurrency: number
  durable: RunCost & { messagesPerSecond: number; msPerMessage: number; p50Ms: number; p99Ms: number; seconds: number }
  baseline: RunCost & { messagesPerSecond: number }
  slowdown: number
  cpuRatio: number
  promisesCountedOver: number
  roundTripsPerMessage: number
  callsPerMessage: Record<string, number>
  writesPerMessage: number
}

interface RunCost {
  cpuMicrosPerMessage: number
  allocatedBytesPerMessage: number
  gcMicrosPerMessage: number
  promisesPerMessage: number
}

describe.concurrent('bench', () => {
  it.each(['memory', 'sqlite', 'file'])('--backend %s: messages/s, latency, round trips, baseline ratio', async (backend) => {
    const result = await botmesh(['bench', '--backend', backend, '--messages', '200', '--concurrency', '4', '--json'])
    expect(result.code, result.stderr).toBe(0)
    const report = jsonOf<Bench>(result)
    expect(report).toMatchObject({ messages: 200, concurrency: 4 })
    expect(report.durable.messagesPerSecond).toBeGreaterThan(0)
    expect(report.durable.p99Ms).toBeGreaterThanOrEqual(report.durable.p50Ms)
    expect(report.baseline.messagesPerSecond).toBeGreaterThan(0)
    expect(report.slowdown).toBeGreaterThan(0)
    // What a message costs the process, in both runs: every message runs code, allocates and makes promises.
    for (const run of [report.durable, report.baseline]) {
      expect(run.cpuMicrosPerMessage).toBeGreaterThan(0)
      expect(run.allocatedBytesPerMessage).toBeGreaterThan(0)
      expect(run.gcMicrosPerMessage).toBeGreaterThanOrEqual(0)
      expect(run.promisesPerMessage).toBeGreaterThanOrEqual(1)
    }
    expect(report.cpuRatio).toBeCloseTo(report.durable.cpuMicrosPerMessage / report.baseline.cpuMicrosPerMessage, 1)
    expect(report.promisesCountedOver).toBe(200)
    // Each message is journaled in and out: at least an admit, a send journal and its completions.
    expect(report.roundTripsPerMessage).toBeGreaterThanOrEqual(2)
    // The journal is written through writes (MessageEngine) or steps (the steps engine, BOTMESH_ENGINE=steps).
    expect(report.callsPerMessage.write! + report.callsPerMessage.step!).toBeGreaterThan(0)
    // Each write call carries at least one record.
    expect(report.writesPerMessage).toBeGreaterThanOrEqual(report.callsPerMessage.write!)
    // The raw store's ceiling is the repository's `npm run bench`, not the package's.
    expect(report).not.toHaveProperty('ceiling')
  })

  it('leaves the raw ceilings and the soak to the repository: --ceiling and --duration are unknown options (exit 2)', async () => {
    for (const flag of [
      ['--ceiling', '0'],
      ['--duration', '1s'],
    ]) {
      const result = await botmesh(['bench', '--backend', 'memory', '--messages', '20', ...flag])
      expect(result.code).toBe(2)
      expect(result.stderr).toContain(`unknown option '${flag[0]}'`)
    }
  })

  it('prints a table of both runs', async () => {
    const result = await botmesh(['bench', '--backend', 'memory', '--messages', '100'])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(
      /RUN\s+MESSAGES\/S\s+P50 MS\s+P99 MS\s+SECONDS\s+CPU µs\/MSG\s+KB ALLOC\/MSG\s+GC µs\/MSG\s+PROMISES\/MSG/,
    )
    expect(result.stdout).toMatch(/with durability\s+[\d.]+/)
    expect(result.stdout).toMatch(/without \(baseline\)\s+[\d.]+/)
    expect(result.stdout).toMatch(/time per message\s+[\d.]+× the baseline/)
    expect(result.stdout).toMatch(/CPU per message\s+[\d.]+× the baseline/)
    expect(result.stdout).toMatch(/writes\/message\s+[\d.]+ records written/)
  })

  it('--encrypt adds the durable run with content sealed, and what sealing costs beside the unsealed run', async () => {
    const result = await botmesh(['bench', '--backend', 'sqlite', '--messages', '100', '--concurrency', '2', '--encrypt', '--json'])
    expect(result.code, result.stderr).toBe(0)
    const report = jsonOf<Bench & { sealed: { figures: Bench['durable']; slowdown: number; cpuRatio: number } }>(result)
    expect(report.sealed.figures.messagesPerSecond).toBeGreaterThan(0)
    expect(report.sealed.slowdown).toBeCloseTo(report.sealed.figures.msPerMessage / report.durable.msPerMessage, 1)
    expect(report.sealed.cpuRatio).toBeCloseTo(report.sealed.figures.cpuMicrosPerMessage / report.durable.cpuMicrosPerMessage, 1)
    expect(jsonOf<Bench>(await botmesh(['bench', '--backend', 'memory', '--messages', '20', '--json']))).toMatchObject({ sealed: null })
    const table = await botmesh(['bench', '--backend', 'memory', '--messages', '50', '--encrypt'])
    expect(table.stdout).toMatch(/with durability, sealed\s+[\d.]+/)
    expect(table.stdout).toMatch(/sealing \(--encrypt\)\s+time per message [\d.]+×, CPU per message [\d.]+× the unsealed durable run's/)
  })
})
