/**
 * The raw store's ceiling beside `npm run bench`'s botmesh runs: what the store itself does per
 * second on the same machine and server, with the driver botmesh uses and the same durability
 * setting, without botmesh. `npm run bench` divides botmesh's messages/s by it (a ratio to a no-op
 * mock says little):
 *
 * - file, events: one append + fsync per write (no group commit), one writer (file.ts);
 * - sqlite: a message's five writes (admit, claim, journal the reply, sent, complete) in one
 *   transaction, WAL, `synchronous = FULL`, one connection (sqlite.ts);
 * - postgres: single-INSERT transactions (pgbench-like), `synchronous_commit = on`, one connection
 *   per client, `clients` at once (postgres.ts);
 * - redis: one scripted call (EVALSHA of an HSET) per operation, `clients` at once on one connection (redis.ts);
 * - memory: the bot without durability (`botmesh bench`'s baseline run; run.js reads it there).
 *
 * Everything a ceiling creates (a temp dir, a table, a key) is removed when it ends. bench/run.js
 * runs this file in a child process after each botmesh run, as it runs `botmesh bench`:
 *   node --import ./test-utils/ts-loader.mjs bench/ceilings/measure.ts <backend> <operations> <clients> [server URL]
 * and reads the figures it prints, one JSON document; a failure exits 1 with BENCH_CEILING_FAILED.
 */
import { tmpdir } from 'node:os'
import { appendFsync } from './file.js'
import { postgresInserts } from './postgres.js'
import { redisScriptedCalls } from './redis.js'
import { sqliteFiveWrites } from './sqlite.js'
import type { CeilingFigures } from './timed.js'

/** The size of the body each ceiling writes: a small message record. */
export const CEILING_BODY_BYTES = 300
/** How long a server ceiling may take to connect. */
const CONNECT_TIMEOUT_MS = 5_000

/** The backends with a ceiling of their own (memory's is botmesh's run without durability). */
const CEILINGS: Record<string, (operations: number, clients: number, url: string | undefined) => Promise<CeilingFigures>> = {
  file: (operations, _clients, _url) => appendFsync(tmpdir(), operations, body()),
  events: (operations, _clients, _url) => appendFsync(tmpdir(), operations, body()),
  sqlite: (operations, _clients, _url) => sqliteFiveWrites(tmpdir(), operations, body()),
  postgres: (operations, clients, url) =>
    postgresInserts(needed(url, 'postgres'), { operations, clients, connectTimeoutMs: CONNECT_TIMEOUT_MS }, body()),
  redis: (operations, clients, url) =>
    redisScriptedCalls(needed(url, 'redis'), { operations, clients, connectTimeoutMs: CONNECT_TIMEOUT_MS }, body()),
}

const body = () => 'x'.repeat(CEILING_BODY_BYTES)

function needed(url: string | undefined, backend: string): string {
  if (url === undefined) throw new Error(`the ${backend} ceiling needs the server's URL`)
  return url
}

async function main([backend, operations, clients, url]: string[]): Promise<void> {
  const ceiling = backend === undefined ? undefined : CEILINGS[backend]
  if (!ceiling) throw new Error(`no raw ceiling for ${JSON.stringify(backend)}: one of ${Object.keys(CEILINGS).join(', ')}`)
  const figures = await ceiling(Number(operations), Number(clients), url)
  process.stdout.write(`${JSON.stringify(figures)}\n`)
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`BENCH_CEILING_FAILED: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exitCode = 1
})
