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
 * Everything a ceiling creates (a temp dir, a table, a key) is removed when it ends.
 */
import { randomBytes } from 'node:crypto'
import { mkdtemp, open, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import type BetterSqlite3 from 'better-sqlite3'
import { BotmeshError, ERROR_CODES } from '../../core/errors.js'
import { THROWAWAY_DEFAULTS, type BackendTarget } from '../../backends/open.js'
import { ceilingFigures, timed, type CeilingFigures } from './closed-loop.js'
import { postgresInserts, redisScriptedCalls } from './ceiling-servers.js'

export type { CeilingFigures } from './closed-loop.js'

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
  const connectTimeoutMs = options.connectTimeoutMs ?? CONNECT_TIMEOUT_DEFAULT_MS
  try {
    switch (place.kind) {
      case 'memory':
        return undefined
      case 'file':
      case 'events':
        return await appendFsync(place.dir, options.operations, body)
      case 'sqlite':
        return await sqliteFiveWrites(place.dir, options.operations, body)
      case 'postgres':
        return await postgresInserts(place.connectionString, { ...options, connectTimeoutMs }, body)
      case 'redis':
        // A Redis Cluster's ceiling depends on how the keys spread over its nodes: not measured.
        if (place.url === undefined) return undefined
        return await redisScriptedCalls(place.url, { ...options, connectTimeoutMs }, body)
    }
  } catch (error) {
    if (error instanceof CeilingError) throw error
    throw new CeilingError(`the raw ${place.kind} ceiling failed: ${error instanceof Error ? error.message : String(error)}`, error)
  }
}

/** A temp dir under `parent` for the length of `use`. */
async function inTempDir<T>(parent: string, use: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(parent, `.botmesh-ceiling-${randomBytes(3).toString('hex')}-`))
  try {
    return await use(dir)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** One append + fsync per write, one writer (what a file journal without group commit does). */
function appendFsync(parent: string, operations: number, body: string): Promise<CeilingFigures> {
  return inTempDir(parent, async (dir) => {
    const handle = await open(join(dir, 'ceiling.log'), 'a', 0o600)
    try {
      const seconds = await timed(operations, 1, async (n) => {
        await handle.write(`{"n":${n},"body":"${body}"}\n`)
        await handle.sync()
      })
      return ceilingFigures('append + fsync per write', 'write', operations, 1, seconds)
    } finally {
      await handle.close()
    }
  })
}

/** A message's five writes in one transaction, WAL, synchronous FULL (botmesh's SQLite settings). */
function sqliteFiveWrites(parent: string, operations: number, body: string): Promise<CeilingFigures> {
  return inTempDir(parent, async (dir) => {
    const { default: Database } = (await import('better-sqlite3')) as unknown as { default: typeof BetterSqlite3 }
    const db = new Database(join(dir, 'ceiling.db'))
    try {
      db.pragma('journal_mode = WAL')
      db.pragma('synchronous = FULL')
      db.exec(
        'CREATE TABLE records (kind TEXT NOT NULL, id TEXT NOT NULL, state TEXT NOT NULL, version INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (kind, id))',
      )
      const insert = db.prepare('INSERT INTO records (kind, id, state, version, body) VALUES (?, ?, ?, 1, ?)')
      const update = db.prepare('UPDATE records SET state = ?, version = version + 1, body = ? WHERE kind = ? AND id = ? AND version = ?')
      const message = db.transaction((id: string) => {
        insert.run('inbox', id, 'received', body) // admit
        update.run('processing', body, 'inbox', id, 1) // claim
        insert.run('outbox', id, 'pending', body) // journal the reply
        update.run('sent', body, 'outbox', id, 1) // sent
        update.run('done', body, 'inbox', id, 2) // complete
      })
      const seconds = await timed(operations, 1, (n) => void message(`m${n}`))
      return ceilingFigures('five writes a message in one transaction (WAL, synchronous FULL)', 'message', operations, 1, seconds)
    } finally {
      db.close()
    }
  })
}
