/**
 * The human form of `npm run bench`'s result: botmesh's runs, what a message cost the process,
 * the queue peers beside botmesh, what each raw ceiling is, and the targets.
 */
import { PEERS } from './peers.js'
import { round } from './report.js'

/** What each backend's raw ceiling is (ceilings/measure.ts, run right after botmesh's run). */
const CEILING_OF = {
  memory: 'the same bot without durability (msg/s)',
  file: 'one append + fsync per write, one writer (writes/s)',
  events: 'one append + fsync per write, one writer (writes/s)',
  sqlite: 'five writes a message in one transaction, WAL, synchronous FULL (msg/s)',
  redis: 'scripted calls (EVALSHA of one HSET), c callers on one connection (calls/s)',
  postgres: 'single-INSERT transactions, synchronous_commit on, c connections (txn/s)',
}

/** The whole printout of a result. */
export function renderTable(result) {
  const m = result.machine
  const rounds = result.options.rounds ?? 1
  return [
    `botmesh ${result.botmeshVersion} bench, ${result.options.messages} messages per run${rounds > 1 ? `, the median of ${rounds} rounds` : ''}, ${m.cpus} × ${m.cpuModel}, node ${m.node}, load average ${m.loadAtStart.join(' ')} at start, ${m.loadAtEnd.join(' ')} at the end (${result.startedAt} → ${result.finishedAt})`,
    '',
    ...renderRuns(result.runs),
    '',
    ...renderCosts(result.runs),
    ...renderPeers(result),
    '',
    'Raw ceilings (what the store does alone, measured right after each botmesh run):',
    ...[...new Set(result.runs.map((run) => run.backend))].map((backend) => `  ${backend.padEnd(9)} ${CEILING_OF[backend]}`),
    ...result.runs
      .filter((run) => run.ceilingError)
      .map((run) => `  ${run.backend} at c${run.concurrency} FAILED ${run.ceilingError.code}: ${firstLine(run.ceilingError.message)}`),
    ...renderTargets(result.targets, rounds),
  ].join('\n')
}

function renderRuns(runs) {
  const headers = ['backend', 'c', 'msg/s', 'p50 ms', 'p99 ms', 'trips/msg', 'writes/msg', 'ceiling/s', '÷ ceiling', 'engine']
  const rows = runs.map((run) =>
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
          run.ceiling ? number(run.ceiling.perSecond) : run.ceilingError ? 'failed' : '-',
          run.ceilingRatio ?? '-',
          run.engine ?? '-',
        ],
  )
  return [
    ...formatTable(headers, rows, [1, 2, 3, 4, 5, 6, 7, 8]),
    '',
    "trips/msg: backend calls on a message's own path; the sweeper's and the instance heartbeat's calls during the run are left out (backgroundCallsPerMessage in --json). writes/msg: records written, heartbeats included. engine: the one the bot ran on (steps, the default on memory; message elsewhere; BOTMESH_ENGINE chooses one for every backend).",
  ]
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

/** The peers measured beside botmesh on the same server: their jobs/s and botmesh's msg/s over them. */
function renderPeers(result) {
  const ran = Object.entries(PEERS).filter(([backend]) => result.runs.some((run) => run.backend === backend))
  if (result.peers.length === 0 || ran.length === 0) return []
  const rows = []
  for (const [backend, peers] of ran)
    for (const peer of peers)
      for (const run of result.runs.filter((r) => r.backend === backend && r[peer.key]))
        rows.push([backend, run[peer.key].name, run.concurrency, number(run[peer.key].jobsPerSecond), run[`${peer.key}Ratio`]])
  return [
    '',
    'Queues a user would pick instead, on the same server right after each botmesh run (one job is half a botmesh message: no reply journaled; a DBOS job is a workflow, a whole message):',
    ...formatTable(['backend', 'peer', 'c', 'jobs/s', 'botmesh msg/s ÷ jobs/s'], rows, [2, 3, 4]).map((line) => `  ${line}`),
    ...ran.flatMap(([, peers]) => peers.map((peer) => `  ${peer.label}: ${peer.how}`)),
    ...result.peers
      .filter((peer) => peer.error)
      .map((peer) => `  ${peer.name} at c${peer.concurrency} FAILED ${peer.error.code}: ${firstLine(peer.error.message)}`),
  ]
}

function renderTargets(targets, rounds) {
  if (targets.length === 0) return []
  const withRange = rounds > 1
  const rows = targets.map((t) => [
    t.name,
    t.concurrency === null ? '' : `c${t.concurrency}`,
    t.ratio ?? '-',
    ...(withRange ? [t.range ? `${t.range[0]}–${t.range[1]}` : '-'] : []),
    `${t.comparison === '>=' ? '≥' : '≤'} ${t.target}`,
    t.met === null ? t.note : t.met ? 'met' : 'not met',
  ])
  const headers = ['ratio', 'at', withRange ? 'median' : 'measured', ...(withRange ? ['rounds low–high'] : []), 'target', '']
  return ['', 'Targets:', ...formatTable(headers, rows, withRange ? [2, 3, 4] : [2, 3]).map((line) => `  ${line}`)]
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
