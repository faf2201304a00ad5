/**
 * What every raw ceiling shares: its figures, the warm-up and the timed closed loop, and the temp
 * dir a file ceiling writes in.
 */
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { closedLoop, round } from '../../src/cli/services/closed-loop.js'

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

/** How much a ceiling runs, once measure.ts has picked it. */
export interface CeilingRun {
  operations: number
  /** Clients at once, where the store serves several (PostgreSQL, Redis); file and SQLite take one writer. */
  clients: number
  connectTimeoutMs: number
}

/** Operations each ceiling runs before measuring starts (connections, prepared statements, JIT). */
export const CEILING_WARMUP_OPERATIONS = 20

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
