/**
 * The clock every queue peer shares: the jobs are added up front, a worker drains them, and the
 * clock runs from the end of the warm-up jobs to the last job done, so jobs/s is what the worker
 * drains. A peer that reports each job done (BullMQ's `completed`) counts it then. A peer that
 * acknowledges a job after its handler returned without saying when (pg-boss, graphile-worker)
 * counts a job when its handler saw it and tells, through `settled`, when its store holds every
 * job done: the clock stops then, so no acknowledgement still in flight is left out.
 */
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { BenchError } from './options.js'

/** How often `settled` is asked once every job was handled (the clock's resolution at its end). */
const SETTLE_POLL_MS = 5

/**
 * A drain of `warmup` + `jobs` jobs; `seconds` resolves with the time the `jobs` after the warm-up
 * took, or rejects with BENCH_PEER_FAILED after `timeoutMs`, or with the error given to `fail`.
 */
export function drainClock({ label, warmup, jobs, timeoutMs, settled = async () => true }) {
  const total = warmup + jobs
  let done = 0
  let started = warmup === 0 ? performance.now() : undefined
  let finish
  let fail
  let timer
  const seconds = new Promise((resolve, reject) => {
    finish = resolve
    fail = reject
    timer = setTimeout(
      () => reject(new BenchError('BENCH_PEER_FAILED', `${label}: ${done} of ${total} jobs done after ${timeoutMs / 1000}s`)),
      timeoutMs,
    )
    // A run that failed before its drain began never awaits the clock: neither may its timer hold
    // the process open nor its rejection go unhandled.
    timer.unref()
  }).finally(() => clearTimeout(timer))
  seconds.catch(() => {})
  const settle = async () => {
    while (!(await settled())) await sleep(SETTLE_POLL_MS)
    finish((performance.now() - started) / 1_000)
  }
  return {
    seconds,
    /** `n` more jobs done (or handled, for a peer with `settled`). */
    handled(n = 1) {
      const before = done
      done += n
      if (before < warmup && done >= warmup) started = performance.now()
      if (before < total && done >= total) settle().catch(fail)
    },
    /** The run failed: `seconds` rejects with `error`. */
    fail(error) {
      fail(error)
    },
  }
}

/** Warm-up jobs per worker slot, done before the clock starts (as `botmesh bench` warms 3 messages a client). */
export const WARMUP_PER_SLOT = 3

/** Adds `total` jobs through `add(from, size)`, `batch` at a time. */
export async function addInBatches(total, batch, add) {
  for (let from = 0; from < total; from += batch) await add(from, Math.min(batch, total - from))
}

/** An installed package's version, for reports: its package.json above its entry (some export no `./package.json`). */
export function versionOf(name) {
  for (let dir = dirname(createRequire(import.meta.url).resolve(name)); dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json')
    if (!existsSync(file)) continue
    const manifest = JSON.parse(readFileSync(file, 'utf8'))
    if (manifest.name === name) return manifest.version
  }
  throw new BenchError('BENCH_PEER_FAILED', `no package.json of ${name} above its entry`)
}

/** A peer run's figures. */
export function peerFigures(name, { jobs, concurrency, seconds }) {
  return {
    name,
    unit: 'job',
    jobs,
    concurrency,
    seconds: round(seconds, 3),
    jobsPerSecond: round(jobs / seconds, 1),
  }
}

function round(value, digits) {
  const scale = 10 ** digits
  return Math.round(value * scale) / scale
}
