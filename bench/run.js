#!/usr/bin/env node
/**
 * `npm run bench` (plain ESM JS; needs `npm run build` first): botmesh beside its peers, in one
 * run on one machine. Each backend at each concurrency is one `botmesh bench --json` in a child
 * process (the CLI's bench service: the bot, the no-durability baseline, round trips and writes
 * per message, what a message costs the process), so every run starts from a fresh process. The
 * store's raw ceiling (ceilings/measure.ts) runs next, in a child process too, then the queue peers
 * of the backend (peers.js: BullMQ on Redis; pg-boss, graphile-worker and DBOS on PostgreSQL), at
 * the same concurrency on the same server. Prints a table (or `--json`) with the ratios the targets name; `--rounds n` repeats each
 * backend and concurrency n times and reports the medians. `--help` says more.
 */
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import os from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { BenchError, HELP, parseOptions } from './options.js'
import { PEERS, SERVER_URL_OF } from './peers.js'
import { failedRun, medianRun, runOf, targetsOf, withCeiling, withPeer } from './report.js'
import { renderTable } from './table.js'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const BIN = join(ROOT, 'bin', 'botmesh.js')
const BUILT = join(ROOT, 'dist', 'cli', 'main.js')
/** The raw ceilings' script (TypeScript, run through the repository's loader as the other bench scripts are). */
const CEILING = [`--import=${join(ROOT, 'test-utils', 'ts-loader.mjs')}`, join(ROOT, 'bench', 'ceilings', 'measure.ts')]
/** A run told to stop at its timeout is killed outright this much later. */
const KILL_GRACE_MS = 5_000

async function main(argv) {
  const options = parseOptions(argv)
  if (options.help) {
    process.stdout.write(`${HELP}\n`)
    return 0
  }
  if (!existsSync(BUILT))
    throw new BenchError('BENCH_NOT_BUILT', 'dist/ is missing: run `npm run build` first (npm run bench runs the built botmesh CLI)')
  const startedAt = new Date().toISOString()
  const loadAtStart = os.loadavg().map((n) => Math.round(n * 100) / 100)
  const runs = []
  const peers = []
  for (const backend of options.backends) {
    for (const concurrency of options.concurrency) {
      const rounds = []
      for (let round = 1; round <= options.rounds; round++) {
        let run = await botmeshRun(backend, concurrency, options, round)
        if (options.ceiling > 0) run = withCeiling(run, await ceilingRun(run, options, round))
        for (const peer of options.ceiling > 0 ? (PEERS[backend] ?? []) : []) {
          const figures = await peerRun(peer, backend, concurrency, options, round)
          peers.push(options.rounds > 1 ? { ...figures, round } : figures)
          run = withPeer(run, peer.key, figures)
        }
        rounds.push(run)
      }
      runs.push(medianRun(rounds))
    }
  }
  const result = {
    botmeshVersion: JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version,
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model.trim() ?? 'unknown',
      node: process.version,
      platform: `${os.platform()} ${os.release()}`,
      loadAtStart,
      loadAtEnd: os.loadavg().map((n) => Math.round(n * 100) / 100),
    },
    startedAt,
    finishedAt: new Date().toISOString(),
    options: {
      messages: options.messages,
      concurrency: options.concurrency,
      backends: options.backends,
      ceilingOperations: options.ceiling,
      rounds: options.rounds,
    },
    runs,
    peers,
    targets: targetsOf(runs),
  }
  process.stdout.write(options.json ? `${JSON.stringify(result, null, 2)}\n` : `${renderTable(result)}\n`)
  return runs.some((run) => run.error || run.ceilingError) || peers.some((peer) => peer.error) ? 1 : 0
}

/** One `botmesh bench --json` in a child process; a failure becomes the row's error. */
async function botmeshRun(backend, concurrency, options, round) {
  note(`bench: botmesh on ${backend} at concurrency ${concurrency}, ${options.messages} messages${ofRounds(round, options)}`)
  const args = [BIN, 'bench', '--backend', backend, '--messages', String(options.messages), '--concurrency', String(concurrency), '--json']
  const env = { ...process.env, BOTMESH_REDIS_URL: options.redisUrl, BOTMESH_POSTGRES_URL: options.postgresUrl }
  delete env.BOTMESH_BACKEND
  try {
    const { code, stdout, stderr } = await child(args, env, options.runTimeoutMs)
    if (code !== 0)
      throw new BenchError(
        'BENCH_RUN_FAILED',
        `botmesh bench --backend ${backend} --concurrency ${concurrency} exited ${code}: ${stderr.trim() || stdout.trim()}`,
      )
    return runOf(backend, concurrency, JSON.parse(stdout))
  } catch (error) {
    return failedRun(backend, concurrency, error)
  }
}

/**
 * The raw store's ceiling after botmesh's run of a backend and concurrency (ceilings/measure.ts, in
 * a child process); on memory, botmesh's own run without durability. A failure becomes its error.
 */
async function ceilingRun(run, options, round) {
  if (run.error) return undefined
  if (run.backend === 'memory') return noDurabilityCeiling(run.report)
  note(`bench: the raw ${run.backend} ceiling at concurrency ${run.concurrency}, ${options.ceiling} operations${ofRounds(round, options)}`)
  const url = SERVER_URL_OF[run.backend]?.(options)
  const args = [...CEILING, run.backend, String(options.ceiling), String(run.concurrency), ...(url ? [url] : [])]
  try {
    const { code, stdout, stderr } = await child(args, process.env, options.runTimeoutMs)
    if (code !== 0)
      throw new BenchError('BENCH_CEILING_FAILED', `the raw ${run.backend} ceiling exited ${code}: ${stderr.trim() || stdout.trim()}`)
    return JSON.parse(stdout)
  } catch (error) {
    return { error: { code: error.code ?? 'BENCH_CEILING_FAILED', message: error.message } }
  }
}

/** Memory's ceiling: the same bot without durability, from botmesh's report. */
function noDurabilityCeiling(report) {
  return {
    name: 'the same bot without durability',
    unit: 'message',
    operations: report.messages,
    clients: report.concurrency,
    seconds: report.baseline.seconds,
    perSecond: report.baseline.messagesPerSecond,
  }
}

/** One queue peer's run, `{ peer, backend, …figures }`; a failure becomes its error. */
async function peerRun(peer, backend, concurrency, options, round) {
  note(`bench: ${peer.label} on ${backend} at concurrency ${concurrency}, ${options.ceiling} jobs${ofRounds(round, options)}`)
  try {
    const url = SERVER_URL_OF[backend](options)
    return {
      peer: peer.key,
      backend,
      ...(await peer.measure({ url, jobs: options.ceiling, concurrency, timeoutMs: options.runTimeoutMs })),
    }
  } catch (error) {
    return {
      peer: peer.key,
      backend,
      name: peer.label,
      concurrency,
      error: { code: error.code ?? 'BENCH_PEER_FAILED', message: error.message },
    }
  }
}

/** Runs node with `args`; SIGTERM at the timeout, SIGKILL a grace later. */
function child(args, env, timeoutMs) {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    proc.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk))
    proc.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk))
    let kill
    const timer = setTimeout(() => {
      stderr += `\n(killed after ${timeoutMs / 1000}s: --run-timeout)`
      proc.kill('SIGTERM')
      kill = setTimeout(() => proc.kill('SIGKILL'), KILL_GRACE_MS)
    }, timeoutMs)
    proc.on('error', (error) => (clearTimeout(timer), reject(error)))
    proc.on('close', (code) => {
      clearTimeout(timer)
      clearTimeout(kill)
      resolve({ code, stdout, stderr })
    })
  })
}

const ofRounds = (round, options) => (options.rounds > 1 ? `, round ${round} of ${options.rounds}` : '')

function note(line) {
  process.stderr.write(`${line}\n`)
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (error) => {
    process.stderr.write(`${error.code ? `${error.code}: ` : ''}${error.message}\n`)
    process.exitCode = error.code === 'BENCH_USAGE' ? 2 : 1
  },
)
