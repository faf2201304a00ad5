/**
 * `npm run bench` (bench/run.js) on a tiny configuration: it exits 0 with the documented JSON
 * shape and prints its table. No figure is asserted beyond being a number: timing is never a test.
 */
import { describe, expect, it } from 'vitest'
import { adminQuery, postgresAvailable } from '../../test-utils/postgres.js'
import { redisAvailable } from '../../test-utils/redis.js'
import { jsonOf, nodeScript } from './helpers.js'

interface BenchRun {
  options: { messages: number; concurrency: number[]; backends: string[] }
  machine: { cpus: number; node: string; loadAtStart: number[] }
  runs: {
    backend: string
    concurrency: number
    messagesPerSecond: number
    p50Ms: number
    p99Ms: number
    roundTripsPerMessage: number
    writesPerMessage: number
    engine: string
    slowdown: number
    cpuMicrosPerMessage: number
    noDurabilityCpuMicrosPerMessage: number
    cpuRatio: number
    allocatedBytesPerMessage: number
    noDurabilityAllocatedBytesPerMessage: number
    promisesPerMessage: number
    noDurabilityPromisesPerMessage: number
    report: {
      cpuRatio: number
      durable: { cpuMicrosPerMessage: number; promisesPerMessage: number }
      baseline: { cpuMicrosPerMessage: number }
    }
    ceiling: { name: string; unit: string; perSecond: number } | null
    ceilingRatio: number | null
    bullmq: unknown
    bullmqRatio: number | null
    pgBoss: { name: string; jobsPerSecond: number } | null
    pgBossRatio: number | null
    graphileWorker: { name: string; jobsPerSecond: number } | null
    graphileWorkerRatio: number | null
    dbos: { name: string; unit: string; jobsPerSecond: number } | null
    dbosRatio: number | null
    error?: unknown
  }[]
  peers: { peer: string; backend: string; name: string; jobs: number; concurrency: number; jobsPerSecond: number; error?: unknown }[]
  targets: {
    name: string
    backend: string
    concurrency: number | null
    ratio: number | null
    comparison: string
    target: number
    met: boolean | null
    range?: [number, number]
    note?: string
  }[]
}

const postgres = await postgresAvailable()
const redis = await redisAvailable('npm run bench on Redis (BullMQ beside botmesh)')

const TINY = ['--messages', '30', '--concurrency', '1', '--backends', 'memory,file']
/** The engine a bot on memory runs on: the steps engine, unless the environment names the message engine. */
const MEMORY_ENGINE = process.env.BOTMESH_ENGINE === 'message' ? 'message' : 'steps'

describe('npm run bench (bench/run.js)', () => {
  it('--json: one row per backend and concurrency, the ceilings, the targets', async () => {
    const result = await nodeScript('bench/run.js', [...TINY, '--json'])
    expect(result.code, result.stderr).toBe(0)
    const report = jsonOf<BenchRun>(result)
    expect(report.options).toEqual({ messages: 30, concurrency: [1], backends: ['memory', 'file'], ceilingOperations: 30, rounds: 1 })
    expect(report.machine.cpus).toBeGreaterThan(0)
    expect(report.runs.map((run) => [run.backend, run.concurrency])).toEqual([
      ['memory', 1],
      ['file', 1],
    ])
    for (const run of report.runs) {
      expect(run.error).toBeUndefined()
      for (const figure of [
        run.messagesPerSecond,
        run.p50Ms,
        run.p99Ms,
        run.roundTripsPerMessage,
        run.writesPerMessage,
        run.slowdown,
        run.ceilingRatio,
      ])
        expect(typeof figure).toBe('number')
      // What a message cost the process, with durability and without, as the run measured it.
      for (const figure of [
        run.cpuMicrosPerMessage,
        run.noDurabilityCpuMicrosPerMessage,
        run.allocatedBytesPerMessage,
        run.promisesPerMessage,
        run.noDurabilityPromisesPerMessage,
      ])
        expect(figure).toBeGreaterThan(0)
      // Allocation is an estimate (work-meter.ts: what an old-space sweep frees between collections is
      // not seen): over 30 light messages without durability it may come out 0, as it does on Node 24
      // in about one run in two, never below.
      expect(run.noDurabilityAllocatedBytesPerMessage).toBeGreaterThanOrEqual(0)
      expect(run).toMatchObject({
        cpuMicrosPerMessage: run.report.durable.cpuMicrosPerMessage,
        noDurabilityCpuMicrosPerMessage: run.report.baseline.cpuMicrosPerMessage,
        cpuRatio: run.report.cpuRatio,
        promisesPerMessage: run.report.durable.promisesPerMessage,
      })
      expect(run.ceiling).toMatchObject({ name: expect.any(String), perSecond: expect.any(Number) })
      expect(run).toMatchObject({ bullmq: null, bullmqRatio: null, pgBoss: null, pgBossRatio: null })
    }
    // Memory runs on the steps engine unless BOTMESH_ENGINE says message; the file backend speaks no steps.
    expect(report.runs.map((run) => run.engine)).toEqual([MEMORY_ENGINE, 'message'])
    expect(report.runs[1]!.ceiling!.name).toBe('append + fsync per write')
    expect(report.peers).toEqual([])
    const memory = report.targets.find((t) => t.backend === 'memory')
    expect(memory).toMatchObject({ concurrency: 1, ratio: expect.any(Number), comparison: '<=', target: 1.5, met: expect.any(Boolean) })
    // The file target is read at concurrency 8, not run here: named, with no ratio.
    expect(report.targets.find((t) => t.backend === 'file')).toMatchObject({
      concurrency: 8,
      ratio: null,
      met: null,
      note: 'concurrency 8 not run',
    })
  })

  it('prints a table of the runs and the targets', async () => {
    const result = await nodeScript('bench/run.js', TINY)
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toMatch(/backend\s+c\s+msg\/s\s+p50 ms\s+p99 ms\s+trips\/msg\s+writes\/msg\s+ceiling\/s\s+÷ ceiling\s+engine$/m)
    expect(result.stdout).toMatch(new RegExp(`^memory\\s+1\\s+[\\d,]+\\s.*\\s${MEMORY_ENGINE}$`, 'm'))
    expect(result.stdout).toMatch(/What a message costs the botmesh process/)
    expect(result.stdout).toMatch(
      /backend\s+c\s+CPU µs\/msg\s+without\s+× CPU\s+KB alloc\/msg\s+without\s+GC µs\/msg\s+without\s+promises\/msg\s+without/,
    )
    expect(result.stdout).toMatch(/^ {2}file\s+1\s+[\d.]+\s+[\d.]+\s+[\d.]+\s/m)
    expect(result.stdout).toMatch(/^file\s+1\s+[\d,]+\s/m)
    expect(result.stdout).toMatch(/^Targets:$/m)
    // No queue peer on these backends.
    expect(result.stdout).not.toMatch(/Queues a user would pick instead/)
  })

  it('--rounds 3: each figure the median of three rounds, the rounds kept, each target with its lowest and highest round', async () => {
    const result = await nodeScript('bench/run.js', [
      '--messages',
      '30',
      '--concurrency',
      '1',
      '--backends',
      'memory',
      '--rounds',
      '3',
      '--json',
    ])
    expect(result.code, result.stderr).toBe(0)
    const report = jsonOf<BenchRun & { runs: (BenchRun['runs'][number] & { rounds: BenchRun['runs'] })[] }>(result)
    expect(report.options).toMatchObject({ rounds: 3 })
    expect(report.runs).toHaveLength(1)
    const [run] = report.runs
    expect(run!.rounds).toHaveLength(3)
    const middle = (values: number[]) => [...values].sort((a, b) => a - b)[1]
    expect(run!.messagesPerSecond).toBe(middle(run!.rounds.map((r) => r.messagesPerSecond)))
    expect(run!.cpuMicrosPerMessage).toBe(middle(run!.rounds.map((r) => r.cpuMicrosPerMessage)))
    expect(run!.cpuRatio).toBe(middle(run!.rounds.map((r) => r.cpuRatio)))
    const slowdowns = run!.rounds.map((r) => r.slowdown)
    expect(run!.slowdown).toBe(middle(slowdowns))
    expect(report.targets.find((t) => t.backend === 'memory')).toMatchObject({
      ratio: middle(slowdowns),
      range: [Math.min(...slowdowns), Math.max(...slowdowns)],
    })
    expect(result.stderr).toMatch(/round 3 of 3/)
  })

  describe.runIf(postgres)('on PostgreSQL', () => {
    const peerSchemas = async () =>
      (await adminQuery<{ nspname: string }>("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'botmesh_bench_%'")).rows.map(
        (row) => row.nspname,
      )

    it('pg-boss and graphile-worker drain as many jobs, and DBOS runs as many one-step workflows, on the same database, each beside the row with its ratio, and leave no schema', async () => {
      const before = await peerSchemas()
      const result = await nodeScript('bench/run.js', ['--messages', '20', '--concurrency', '2', '--backends', 'postgres', '--json'])
      expect(result.code, result.stderr).toBe(0)
      const report = jsonOf<BenchRun>(result)
      expect(report.peers.map((p) => [p.peer, p.backend, p.jobs, p.concurrency])).toEqual([
        ['pgBoss', 'postgres', 20, 2],
        ['graphileWorker', 'postgres', 20, 2],
        ['dbos', 'postgres', 20, 2],
      ])
      const [pgBoss, graphileWorker, dbos] = report.peers
      expect(pgBoss!.name).toMatch(/^pg-boss 10\.\d+\.\d+ work\(\) batchSize 2$/)
      expect(graphileWorker!.name).toMatch(/^graphile-worker 0\.17\.\d+$/)
      expect(dbos!.name).toMatch(/^DBOS Transact 5\.\d+\.\d+ one-step workflow$/)
      const [run] = report.runs
      const ratio = (jobsPerSecond: number) => Math.round((run!.messagesPerSecond / jobsPerSecond) * 1000) / 1000
      expect(run).toMatchObject({
        pgBoss: { name: pgBoss!.name, jobsPerSecond: pgBoss!.jobsPerSecond },
        pgBossRatio: ratio(pgBoss!.jobsPerSecond),
        graphileWorker: { jobsPerSecond: graphileWorker!.jobsPerSecond },
        graphileWorkerRatio: ratio(graphileWorker!.jobsPerSecond),
        dbos: { unit: 'workflow', jobsPerSecond: dbos!.jobsPerSecond },
        dbosRatio: ratio(dbos!.jobsPerSecond),
        bullmq: null,
      })
      expect(report.targets.find((t) => t.name.includes('pg-boss'))).toMatchObject({ concurrency: 50, ratio: null })
      expect((await peerSchemas()).filter((schema) => !before.includes(schema))).toEqual([])

      // The table prints each peer beside botmesh.
      const { renderTable } = (await import(new URL('../../bench/table.js', import.meta.url).href)) as {
        renderTable(result: unknown): string
      }
      const table = renderTable(report)
      expect(table).toMatch(/Queues a user would pick instead/)
      expect(table).toMatch(
        new RegExp(`postgres\\s+pg-boss 10\\.\\d+\\.\\d+ work\\(\\) batchSize 2\\s+2\\s+[\\d,]+\\s+${run!.pgBossRatio}$`, 'm'),
      )
      expect(table).toMatch(/postgres\s+graphile-worker 0\.17\.\d+\s+2\s+[\d,]+\s+[\d.]+$/m)
      expect(table).toMatch(/postgres\s+DBOS Transact 5\.\d+\.\d+ one-step workflow\s+2\s+[\d,]+\s+[\d.]+$/m)
    })
  })

  it.runIf(redis)('on Redis: BullMQ drains as many jobs on the same server, beside the row with its ratio', async () => {
    const result = await nodeScript('bench/run.js', ['--messages', '20', '--concurrency', '2', '--backends', 'redis', '--json'])
    expect(result.code, result.stderr).toBe(0)
    const report = jsonOf<BenchRun>(result)
    expect(report.peers.map((p) => [p.peer, p.backend, p.jobs, p.concurrency])).toEqual([['bullmq', 'redis', 20, 2]])
    const [bullmq] = report.peers
    const [run] = report.runs
    expect(run).toMatchObject({
      bullmq: { name: expect.stringMatching(/^BullMQ \d+\.\d+\.\d+ no-op worker$/), jobsPerSecond: bullmq!.jobsPerSecond },
      bullmqRatio: Math.round((run!.messagesPerSecond / bullmq!.jobsPerSecond) * 1000) / 1000,
      pgBoss: null,
    })
  })

  it('refuses --rounds 0 with BENCH_USAGE (exit 2)', async () => {
    const result = await nodeScript('bench/run.js', ['--rounds', '0'])
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/BENCH_USAGE: --rounds must be a whole number from 1 to 99/)
  })

  it('refuses an unknown backend with BENCH_USAGE (exit 2)', async () => {
    const result = await nodeScript('bench/run.js', ['--backends', 'memory,nope'])
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/BENCH_USAGE: --backends: unknown nope/)
  })
})
