/**
 * The raw store's ceiling beside `bench`: what the store itself does per second on the same
 * machine and server, with the driver botmesh uses and the same durability setting, without
 * botmesh. `bench` divides its messages/s by it (a ratio to a no-op mock says little):
 *
 * - file, events: one append + fsync per write (no group commit), one writer, beside the journal;
 * - sqlite: a message's five writes (admit, claim, journal the reply, sent, complete) in one
 *   transaction, WAL, `synchronous = FULL`, one connection;
 * - postgres: single-INSERT transactions (pgbench-like), `synchronous_commit = on`, one connection
 *   per client, `clients` at once;
 * - redis: one scripted call (EVALSHA of an HSET) per operation, `clients` at once on one connection;
 * - memory: the bot without durability (bench's baseline run, measured there).
 *
 * Each store's ceiling lives in its backend folder (`<store>/ceiling.ts`, the one place that drives
 * the store without botmesh); this file picks one for a backend target. Everything a ceiling
 * creates (a temp dir, a table, a key) is removed when it ends.
 */
import { tmpdir } from 'node:os'
import { dirname } from 'node:path'
import { BotmeshError, ERROR_CODES } from '../../src/core/errors.js'
import type { CeilingFigures } from '../../src/cli/services/closed-loop.js'
import { appendFsync } from './file.js'
import { postgresInserts } from './postgres.js'
import { redisScriptedCalls } from './redis.js'
import { sqliteFiveWrites } from './sqlite.js'
import type { BackendTarget } from '../../src/backends/gateway/backend-url.js'
import { THROWAWAY_DEFAULTS } from '../../src/backends/gateway/throwaway.js'

// What bench measures its runs with, beside the ceilings.
export { closedLoop, percentile, round, type CeilingFigures } from '../../src/cli/services/closed-loop.js'

/** Where a ceiling runs: beside the journal the bench measured. */
export type CeilingPlace =
  | { kind: 'memory' }
  | { kind: 'file' | 'sqlite' | 'events'; dir: string }
  | { kind: 'redis'; url: string | undefined }
  | { kind: 'postgres'; connectionString: string }

/** How much a ceiling runs. */
export interface CeilingOptions {
  operations: number
  /** Clients at once, where the store serves several (PostgreSQL, Redis); file and SQLite take one writer. */
  clients: number
  /** @default 5000 */
  connectTimeoutMs?: number
}

/** A ceiling could not be measured (the store refused, a connection failed). */
export class CeilingError extends BotmeshError {
  constructor(message: string, cause?: unknown) {
    super(ERROR_CODES.BENCH_CEILING_FAILED, message, { cause })
  }
}

/** The size of the body each ceiling writes: a small message record. */
export const CEILING_BODY_BYTES = 300
/** How long a server ceiling may take to connect, by default. */
const CONNECT_TIMEOUT_DEFAULT_MS = 5_000

/** The ceiling's place for a backend target, with the server URLs the throwaway instances use. */
export function ceilingPlace(target: BackendTarget, servers: { redisUrl?: string; postgresUrl?: string } = {}): CeilingPlace {
  switch (target.kind) {
    case 'memory':
      return { kind: 'memory' }
    case 'file':
    case 'sqlite':
      return { kind: target.kind, dir: target.throwaway ? tmpdir() : dirname(target.path) }
    case 'events':
      return { kind: 'events', dir: target.throwaway || !target.path ? tmpdir() : dirname(target.path) }
    case 'redis':
      return {
        kind: 'redis',
        url: target.throwaway ? (servers.redisUrl ?? process.env.BOTMESH_REDIS_URL ?? THROWAWAY_DEFAULTS.redisUrl) : target.redis.url,
      }
    case 'postgres':
      return {
        kind: 'postgres',
        connectionString: target.throwaway
          ? (servers.postgresUrl ?? process.env.BOTMESH_POSTGRES_URL ?? THROWAWAY_DEFAULTS.postgresUrl)
          : target.connectionString,
      }
  }
}

/** Measures the ceiling of a place; none for memory (bench's baseline is its ceiling) or a Redis Cluster. */
export async function measureCeiling(place: CeilingPlace, options: CeilingOptions): Promise<CeilingFigures | undefined> {
  const body = 'x'.repeat(CEILING_BODY_BYTES)
  const run = {
    operations: options.operations,
    clients: options.clients,
    connectTimeoutMs: options.connectTimeoutMs ?? CONNECT_TIMEOUT_DEFAULT_MS,
  }
  try {
    switch (place.kind) {
      case 'memory':
        return undefined
      case 'file':
      case 'events':
        return await appendFsync(place.dir, run.operations, body)
      case 'sqlite':
        return await sqliteFiveWrites(place.dir, run.operations, body)
      case 'postgres':
        return await postgresInserts(place.connectionString, run, body)
      case 'redis':
        // A Redis Cluster's ceiling depends on how the keys spread over its nodes: not measured.
        if (place.url === undefined) return undefined
        return await redisScriptedCalls(place.url, run, body)
    }
  } catch (error) {
    if (error instanceof CeilingError) throw error
    throw new CeilingError(`the raw ${place.kind} ceiling failed: ${error instanceof Error ? error.message : String(error)}`, error)
  }
}
