/**
 * What `bench` and the raw-store ceilings of the backend folders share: a closed loop of clients,
 * timing, percentiles, rounding, and the temp dir a file ceiling writes in.
 */
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { join } from 'node:path'

/** One ceiling measured. */
export interface CeilingFigures {
  /** What was measured, for reports ("append + fsync per write"). */
  name: string
  /** What one operation is: a message (the memory baseline, SQLite's five writes), a write, a transaction, a call. */
  unit: 'message' | 'write' | 'transaction' | 'call'
  operations: number
  clients: number
  seconds: number
  perSecond: number
}

/** How much a ceiling runs, once the gateway (gateway/ceiling.ts) has picked it. */
export interface CeilingRun {
  operations: number
  /** Clients at once, where the store serves several (PostgreSQL, Redis); file and SQLite take one writer. */
  clients: number
  connectTimeoutMs: number
}

/** Operations each ceiling runs before measuring starts (connections, prepared statements, JIT). */
export const CEILING_WARMUP_OPERATIONS = 20

/** `count` operations shared by `concurrency` clients, each starting its next one when its last finished. */
export async function closedLoop(concurrency: number, count: number, operate: (n: number, client: number) => Promise<void>): Promise<void> {
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async (_, client) => {
      while (next < count) await operate(next++, client)
    }),
  )
}

/** The value at `fraction` (0..1) of an ascending list; 0 for an empty one. */
export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return 0
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!
}

export function round(value: number, digits: number): number {
  const scale = 10 ** digits
  return Math.round(value * scale) / scale
}

/** Figures of a timed run of `operations`. */
export function ceilingFigures(
  name: string,
  unit: CeilingFigures['unit'],
  operations: number,
  clients: number,
  seconds: number,
): CeilingFigures {
  return { name, unit, operations, clients, seconds: round(seconds, 3), perSecond: round(operations / seconds, 1) }
}

/** Runs `operate` for the warm-up, then `operations` times timed; returns the seconds. */
export async function timed(
  operations: number,
  clients: number,
  operate: (n: number, client: number) => Promise<void> | void,
): Promise<number> {
  const run = async (n: number, client: number) => operate(n, client)
  await closedLoop(clients, CEILING_WARMUP_OPERATIONS, run)
  const started = performance.now()
  await closedLoop(clients, operations, (n, client) => run(CEILING_WARMUP_OPERATIONS + n, client))
  return (performance.now() - started) / 1_000
}

/** A temp dir under `parent` for the length of `use`, removed when it ends. */
export async function inCeilingDir<T>(parent: string, use: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(parent, `.botmesh-ceiling-${randomBytes(3).toString('hex')}-`))
  try {
    return await use(dir)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
