/**
 * `npm run bench`'s results: one row per backend and concurrency, the ratios the targets of issue
 * 12 name, and the human table of both.
 */

/** What each backend's raw ceiling is (what `botmesh bench` measured beside it). */
const CEILING_OF = {
  memory: 'the same bot without durability (msg/s)',
  file: 'one append + fsync per write, one writer (writes/s)',
  events: 'one append + fsync per write, one writer (writes/s)',
  sqlite: 'five writes a message in one transaction, WAL, synchronous FULL (msg/s)',
  redis: 'scripted calls (EVALSHA of one HSET), c callers on one connection (calls/s)',
  postgres: 'single-INSERT transactions, synchronous_commit on, c connections (txn/s)',
}

/**
 * The targets of issue 12, each a ratio measured in one run. `at` is the concurrency it is read
 * at ('each': one line per concurrency run; 'most': the largest over the backend's runs).
 */
const TARGETS = [
  { backend: 'redis', at: 1, name: 'Redis msg/s ÷ BullMQ jobs/s', of: (run) => run.bullmqRatio, atLeast: 1 },
  { backend: 'redis', at: 50, name: 'Redis msg/s ÷ BullMQ jobs/s', of: (run) => run.bullmqRatio, atLeast: 1 },
  { backend: 'postgres', at: 8, name: 'PostgreSQL msg/s ÷ single-INSERT txn/s (8 clients)', of: (run) => run.ceilingRatio, atLeast: 0.5 },
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
    ceiling: report.ceiling,
    ceilingRatio: report.ceilingRatio,
    bullmq: null,
    bullmqRatio: null,
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
  'bullmqRatio',
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
  if (row.bullmq) row.bullmq = { ...row.bullmq, jobsPerSecond: medianOf(ran.map((run) => run.bullmq?.jobsPerSecond)) }
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

/** Puts BullMQ's figures beside the Redis row of the same concurrency. */
export function withPeer(run, peer) {
  if (run.error || peer.error) return run
  return { ...run, bullmq: peer, bullmqRatio: round(run.messagesPerSecond / peer.jobsPerSecond, 3) }
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

/** The human form of a result: the table, what each ceiling is, the targets. */
export function renderTable(result) {
  const out = []
  const m = result.machine
  const rounds = result.options.rounds ?? 1
  out.push(
    `botmesh ${result.botmeshVersion} bench, ${result.options.messages} messages per run${rounds > 1 ? `, the median of ${rounds} rounds` : ''}, ${m.cpus} × ${m.cpuModel}, node ${m.node}, load average ${m.loadAtStart.join(' ')} at start, ${m.loadAtEnd.join(' ')} at the end (${result.startedAt} → ${result.finishedAt})`,
  )
  out.push('')
  const headers = [
    'backend',
    'c',
    'msg/s',
    'p50 ms',
    'p99 ms',
    'trips/msg',
    'writes/msg',
    'ceiling/s',
    '÷ ceiling',
    'BullMQ jobs/s',
    '÷ BullMQ',
  ]
  const rows = result.runs.map((run) =>
    run.error
      ? [run.backend, run.concurrency, `FAILED ${run.error.code}: ${firstLine(run.error.message)}`]
      : [
          run.backend,
          run.concurrency,
          number(run.messagesPerSecond),
          run.p50Ms,
          run.p99Ms,
          run.roundTripsPerMessage,
          run.writesPerMessage,
          run.ceiling ? number(run.ceiling.perSecond) : '-',
          run.ceilingRatio ?? '-',
          run.bullmq ? number(run.bullmq.jobsPerSecond) : '-',
          run.bullmqRatio ?? '-',
        ],
  )
  out.push(...formatTable(headers, rows, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]))
  out.push(
    '',
    "trips/msg: backend calls on a message's own path; the sweeper's and the instance heartbeat's calls during the run are left out (backgroundCallsPerMessage in --json). writes/msg: records written, heartbeats included.",
  )
  out.push('', ...renderCosts(result.runs))
  out.push('', 'Raw ceilings (what the store does alone, measured right after each botmesh run):')
  for (const backend of new Set(result.runs.map((run) => run.backend))) out.push(`  ${backend.padEnd(9)} ${CEILING_OF[backend]}`)
  if (result.peers.length > 0)
    out.push(
      `  BullMQ    ${result.peers.find((peer) => peer.name)?.name ?? 'BullMQ'}: jobs added up front, then drained by a Worker at concurrency c`,
    )
  for (const peer of result.peers.filter((p) => p.error))
    out.push(`  BullMQ at c${peer.concurrency} FAILED ${peer.error.code}: ${firstLine(peer.error.message)}`)
  if (result.targets.length > 0) {
    out.push('', 'Targets (issue 12):')
    const withRange = rounds > 1
    const targetRows = result.targets.map((t) => [
      t.name,
      t.concurrency === null ? '' : `c${t.concurrency}`,
      t.ratio ?? '-',
      ...(withRange ? [t.range ? `${t.range[0]}–${t.range[1]}` : '-'] : []),
      `${t.comparison === '>=' ? '≥' : '≤'} ${t.target}`,
      t.met === null ? t.note : t.met ? 'met' : 'not met',
    ])
    const headers = ['ratio', 'at', withRange ? 'median' : 'measured', ...(withRange ? ['rounds low–high'] : []), 'target', '']
    out.push(...formatTable(headers, targetRows, withRange ? [2, 3, 4] : [2, 3]).map((line) => `  ${line}`))
  }
  return out.join('\n')
}

/** What a message cost the botmesh process in each run, with durability and without. */
function renderCosts(runs) {
  const headers = [
    'backend',
    'c',
    'CPU µs/msg',
    'without',
    '× CPU',
    'KB alloc/msg',
    'without',
    'GC µs/msg',
    'without',
    'promises/msg',
    'without',
  ]
  const rows = runs
    .filter((run) => !run.error)
    .map((run) => [
      run.backend,
      run.concurrency,
      run.cpuMicrosPerMessage,
      run.noDurabilityCpuMicrosPerMessage,
      run.cpuRatio,
      kilobytes(run.allocatedBytesPerMessage),
      kilobytes(run.noDurabilityAllocatedBytesPerMessage),
      run.gcMicrosPerMessage,
      run.noDurabilityGcMicrosPerMessage,
      run.promisesPerMessage,
      run.noDurabilityPromisesPerMessage,
    ])
  return [
    "What a message costs the botmesh process (user + system CPU of every thread, a server's own not included; GC: pause time; promises counted in an untimed pass after each run):",
    ...formatTable(headers, rows, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]).map((line) => `  ${line}`),
  ]
}

/** Columns padded to their widest cell, those in `right` right-aligned; a shorter row (a failure) runs on in its last cell. */
function formatTable(headers, rows, right = []) {
  const cells = [headers, ...rows].map((row) => row.map((cell) => String(cell)))
  const full = cells.filter((row) => row.length === headers.length)
  const widths = headers.map((_, i) => Math.max(...full.map((row) => row[i].length)))
  const pad = (cell, i) => (right.includes(i) ? cell.padStart(widths[i]) : cell.padEnd(widths[i]))
  return cells.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 && row.length < headers.length ? cell : pad(cell, i)))
      .join('  ')
      .trimEnd(),
  )
}

const kilobytes = (bytes) => (typeof bytes === 'number' ? round(bytes / 1024, 1) : '-')
const number = (value) => Math.round(value).toLocaleString('en-US')
const firstLine = (text) =>
  String(text)
    .split('\n')
    .find((line) => line.trim() !== '') ?? ''

export function round(value, digits) {
  const scale = 10 ** digits
  return Math.round(value * scale) / scale
}
