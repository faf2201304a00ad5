/**
 * `npm run bench`'s results: one row per backend and concurrency (botmesh's figures, its peers'
 * beside them) and the ratios the targets name. table.js prints them.
 */
import { PEER_KEYS } from './peers.js'

/**
 * The targets, each a ratio measured in one run. `at` is the concurrency it is read
 * at ('each': one line per concurrency run; 'most': the largest over the backend's runs).
 */
const TARGETS = [
  { backend: 'redis', at: 1, name: 'Redis msg/s ÷ BullMQ jobs/s', of: (run) => run.bullmqRatio, atLeast: 1 },
  { backend: 'redis', at: 50, name: 'Redis msg/s ÷ BullMQ jobs/s', of: (run) => run.bullmqRatio, atLeast: 1 },
  { backend: 'postgres', at: 8, name: 'PostgreSQL msg/s ÷ single-INSERT txn/s (8 clients)', of: (run) => run.ceilingRatio, atLeast: 0.5 },
  {
    backend: 'postgres',
    at: 50,
    name: 'PostgreSQL msg/s ÷ pg-boss work() batchSize 50 jobs/s',
    of: (run) => run.pgBossRatio,
    atLeast: 1,
  },
  { backend: 'sqlite', at: 8, name: 'SQLite msg/s ÷ five-writes-a-transaction msg/s (FULL)', of: (run) => run.ceilingRatio, atLeast: 1 },
  { backend: 'file', at: 8, name: 'File msg/s ÷ append + fsync writes/s', of: (run) => run.ceilingRatio, atLeast: 2 },
  { backend: 'memory', at: 'each', name: 'Memory time per message ÷ no durability', of: (run) => run.slowdown, atMost: 1.5 },
  { backend: 'redis', at: 'most', name: 'Redis round trips per message', of: (run) => run.roundTripsPerMessage, atMost: 3 },
  { backend: 'postgres', at: 'most', name: 'PostgreSQL round trips per message', of: (run) => run.roundTripsPerMessage, atMost: 3 },
]

/** One row from a `botmesh bench --json` report. */
export function runOf(backend, concurrency, report) {
  return {
    backend,
    concurrency,
    messagesPerSecond: report.durable.messagesPerSecond,
    p50Ms: report.durable.p50Ms,
    p99Ms: report.durable.p99Ms,
    msPerMessage: report.durable.msPerMessage,
    roundTripsPerMessage: report.roundTripsPerMessage,
    backgroundCallsPerMessage: report.backgroundCallsPerMessage,
    writesPerMessage: report.writesPerMessage,
    engine: report.engine,
    noDurabilityMessagesPerSecond: report.baseline.messagesPerSecond,
    slowdown: report.slowdown,
    cpuMicrosPerMessage: report.durable.cpuMicrosPerMessage,
    noDurabilityCpuMicrosPerMessage: report.baseline.cpuMicrosPerMessage,
    cpuRatio: report.cpuRatio,
    allocatedBytesPerMessage: report.durable.allocatedBytesPerMessage,
    noDurabilityAllocatedBytesPerMessage: report.baseline.allocatedBytesPerMessage,
    gcMicrosPerMessage: report.durable.gcMicrosPerMessage,
    noDurabilityGcMicrosPerMessage: report.baseline.gcMicrosPerMessage,
    promisesPerMessage: report.durable.promisesPerMessage,
    noDurabilityPromisesPerMessage: report.baseline.promisesPerMessage,
    ceiling: null,
    ceilingRatio: null,
    ...Object.fromEntries(
      PEER_KEYS.flatMap((key) => [
        [key, null],
        [`${key}Ratio`, null],
      ]),
    ),
    report,
  }
}

/** A row whose run failed. */
export function failedRun(backend, concurrency, error) {
  return { backend, concurrency, error: { code: error.code ?? 'BENCH_RUN_FAILED', message: error.message } }
}

/** The figures of a row that are the median of its rounds. */
const MEDIAN_FIGURES = [
  'messagesPerSecond',
  'p50Ms',
  'p99Ms',
  'msPerMessage',
  'roundTripsPerMessage',
  'backgroundCallsPerMessage',
  'writesPerMessage',
  'noDurabilityMessagesPerSecond',
  'slowdown',
  'cpuMicrosPerMessage',
  'noDurabilityCpuMicrosPerMessage',
  'cpuRatio',
  'allocatedBytesPerMessage',
  'noDurabilityAllocatedBytesPerMessage',
  'gcMicrosPerMessage',
  'noDurabilityGcMicrosPerMessage',
  'promisesPerMessage',
  'noDurabilityPromisesPerMessage',
  'ceilingRatio',
  ...PEER_KEYS.map((key) => `${key}Ratio`),
]

/**
 * One row for the rounds of a backend and concurrency: each figure the median of the rounds that
 * ran (every ratio was taken within its own round), the rounds themselves in `rounds`, and `report`
 * the round of the median msg/s. One round is its own row; rounds that all failed give the first failure.
 */
export function medianRun(rounds) {
  if (rounds.length === 1) return rounds[0]
  const ran = rounds.filter((run) => !run.error)
  if (ran.length === 0) return rounds[0]
  const row = { ...byMessagesPerSecond(ran)[Math.floor((ran.length - 1) / 2)] }
  for (const figure of MEDIAN_FIGURES) row[figure] = medianOf(ran.map((run) => run[figure]))
  if (row.ceiling) row.ceiling = { ...row.ceiling, perSecond: medianOf(ran.map((run) => run.ceiling?.perSecond)) }
  for (const key of PEER_KEYS) if (row[key]) row[key] = { ...row[key], jobsPerSecond: medianOf(ran.map((run) => run[key]?.jobsPerSecond)) }
  row.rounds = rounds.map(({ report: _report, ...run }) => run)
  return row
}

const byMessagesPerSecond = (runs) => [...runs].sort((a, b) => a.messagesPerSecond - b.messagesPerSecond)

/** The median of the numbers among `values` (null when there are none). */
function medianOf(values) {
  const numbers = values.filter((value) => typeof value === 'number').sort((a, b) => a - b)
  if (numbers.length === 0) return null
  const middle = numbers.length / 2
  return round(numbers.length % 2 ? numbers[Math.floor(middle)] : (numbers[middle - 1] + numbers[middle]) / 2, 3)
}

/** Puts the raw store's ceiling beside a row (none: not measured; `error`: it failed, and the row says so). */
export function withCeiling(run, ceiling) {
  if (run.error || !ceiling) return run
  if (ceiling.error) return { ...run, ceilingError: ceiling.error }
  return { ...run, ceiling, ceilingRatio: round(run.messagesPerSecond / ceiling.perSecond, 3) }
}

/** Puts a peer's figures (`key`: its name on a row) beside the row of the same backend and concurrency. */
export function withPeer(run, key, peer) {
  if (run.error || peer.error) return run
  return { ...run, [key]: peer, [`${key}Ratio`]: round(run.messagesPerSecond / peer.jobsPerSecond, 3) }
}

/** Each target with its ratio in this run, or `ratio: null` and why not. */
export function targetsOf(runs) {
  const lines = []
  for (const target of TARGETS) {
    const own = runs.filter((run) => run.backend === target.backend)
    if (own.length === 0) continue
    const read = (chosen, at) => {
      const ratio = chosen && !chosen.error ? target.of(chosen) : null
      const goal = target.atLeast !== undefined ? { comparison: '>=', target: target.atLeast } : { comparison: '<=', target: target.atMost }
      const met = ratio === null ? null : goal.comparison === '>=' ? ratio >= goal.target : ratio <= goal.target
      const ofRounds = (chosen?.rounds ?? []).filter((run) => !run.error).map(target.of)
      return {
        name: target.name,
        backend: target.backend,
        concurrency: at,
        ratio,
        ...(ofRounds.length > 1 && { range: [Math.min(...ofRounds), Math.max(...ofRounds)] }),
        ...goal,
        met,
        ...(ratio === null && { note: chosen ? 'run failed' : `concurrency ${at} not run` }),
      }
    }
    if (target.at === 'each') for (const run of own) lines.push(read(run, run.concurrency))
    else if (target.at === 'most') {
      const measured = own.filter((run) => !run.error)
      const most = measured.reduce((a, b) => (target.of(b) > target.of(a) ? b : a), measured[0])
      lines.push(read(most, most?.concurrency ?? null))
    } else
      lines.push(
        read(
          own.find((run) => run.concurrency === target.at),
          target.at,
        ),
      )
  }
  return lines
}

export function round(value, digits) {
  const scale = 10 ** digits
  return Math.round(value * scale) / scale
}
