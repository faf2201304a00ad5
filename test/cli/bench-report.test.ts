/**
 * `npm run bench`'s rows and targets (bench/report.js) from given figures: each peer's ratio is
 * botmesh's msg/s over the peer's jobs/s of the same backend and concurrency (the raw ceiling's
 * ratio over its operations/s), medians take the peers' figures too, and the PostgreSQL target
 * against pg-boss is read at concurrency 50.
 */
import { describe, expect, it } from 'vitest'

interface Row {
  backend: string
  concurrency: number
  messagesPerSecond: number
  error?: unknown
  rounds?: Row[]
  [figure: string]: unknown
}
interface Peer {
  name: string
  concurrency: number
  jobsPerSecond: number
  error?: unknown
}
interface Target {
  name: string
  backend: string
  concurrency: number | null
  ratio: number | null
  met: boolean | null
  note?: string
}
interface Report {
  runOf(backend: string, concurrency: number, report: unknown): Row
  withPeer(run: Row, key: string, peer: Peer): Row
  withCeiling(run: Row, ceiling: { perSecond: number } | { error: { code: string; message: string } } | undefined): Row
  medianRun(rounds: Row[]): Row
  targetsOf(runs: Row[]): Target[]
}

// Plain ESM JavaScript outside the TypeScript sources: loaded by URL, typed here.
const { runOf, withPeer, withCeiling, medianRun, targetsOf } = (await import(
  new URL('../../bench/report.js', import.meta.url).href
)) as Report

const figures = (messagesPerSecond: number) => ({
  durable: {
    messagesPerSecond,
    p50Ms: 1,
    p99Ms: 2,
    msPerMessage: 1_000 / messagesPerSecond,
    cpuMicrosPerMessage: 100,
    allocatedBytesPerMessage: 40_000,
    gcMicrosPerMessage: 3,
    promisesPerMessage: 60,
  },
  baseline: {
    messagesPerSecond: 10_000,
    cpuMicrosPerMessage: 25,
    allocatedBytesPerMessage: 12_000,
    gcMicrosPerMessage: 1,
    promisesPerMessage: 38,
  },
  slowdown: 4,
  cpuRatio: 4,
  roundTripsPerMessage: 3,
  backgroundCallsPerMessage: 0.1,
  writesPerMessage: 4,
})
const peer = (name: string, concurrency: number, jobsPerSecond: number): Peer => ({ name, concurrency, jobsPerSecond })

describe('npm run bench rows', () => {
  it('a row carries every peer key, empty until its peer ran', () => {
    const row = runOf('postgres', 50, figures(2_000))
    expect(row).toMatchObject({
      bullmq: null,
      bullmqRatio: null,
      pgBoss: null,
      pgBossRatio: null,
      graphileWorker: null,
      graphileWorkerRatio: null,
      dbos: null,
      dbosRatio: null,
      ceiling: null,
      ceilingRatio: null,
      cpuMicrosPerMessage: 100,
      noDurabilityCpuMicrosPerMessage: 25,
      cpuRatio: 4,
    })
  })

  it("a peer's ratio is botmesh msg/s over its jobs/s; a failed peer leaves the row as it was", () => {
    const row = runOf('postgres', 50, figures(2_000))
    const withPgBoss = withPeer(row, 'pgBoss', peer('pg-boss 10.4.2 work() batchSize 50', 50, 8_000))
    expect(withPgBoss).toMatchObject({ pgBoss: { jobsPerSecond: 8_000 }, pgBossRatio: 0.25, graphileWorkerRatio: null })
    const both = withPeer(withPgBoss, 'graphileWorker', peer('graphile-worker 0.17.3', 50, 1_600))
    expect(both).toMatchObject({ pgBossRatio: 0.25, graphileWorkerRatio: 1.25 })
    expect(withPeer(row, 'pgBoss', { ...peer('pg-boss', 50, 0), error: { code: 'BENCH_PEER_FAILED' } })).toBe(row)
  })

  it("the raw ceiling's ratio is botmesh msg/s over its operations/s; a failed one is named on the row, none leaves it as it was", () => {
    const row = runOf('postgres', 8, figures(2_000))
    const ceiling = { name: 'single-INSERT transactions', unit: 'transaction', perSecond: 8_000 }
    expect(withCeiling(row, ceiling)).toMatchObject({ ceiling, ceilingRatio: 0.25 })
    const error = { code: 'BENCH_CEILING_FAILED', message: 'connection refused' }
    expect(withCeiling(row, { error })).toMatchObject({ ceiling: null, ceilingRatio: null, ceilingError: error })
    expect(withCeiling(row, undefined)).toBe(row)
  })

  it("rounds: each peer's jobs/s and ratio the median of the rounds", () => {
    const rounds = [
      [2_000, 8_000],
      [1_800, 9_000],
      [2_400, 6_000],
    ].map(([msgs, jobs]) => withPeer(runOf('postgres', 50, figures(msgs!)), 'pgBoss', peer('pg-boss', 50, jobs!)))
    const row = medianRun(rounds)
    expect(row.messagesPerSecond).toBe(2_000)
    expect(row.pgBoss).toMatchObject({ jobsPerSecond: 8_000 })
    // 0.25, 0.2, 0.4: the median ratio, each taken within its own round
    expect(row.pgBossRatio).toBe(0.25)
  })

  it('the PostgreSQL target against pg-boss is read at concurrency 50, and named without a run there', () => {
    const at50 = withPeer(runOf('postgres', 50, figures(3_000)), 'pgBoss', peer('pg-boss', 50, 2_000))
    const target = targetsOf([at50]).find((t) => t.name.includes('pg-boss'))
    expect(target).toMatchObject({ backend: 'postgres', concurrency: 50, ratio: 1.5, met: true })
    const at8 = runOf('postgres', 8, figures(3_000))
    expect(targetsOf([at8]).find((t) => t.name.includes('pg-boss'))).toMatchObject({
      concurrency: 50,
      ratio: null,
      met: null,
      note: 'concurrency 50 not run',
    })
  })
})
