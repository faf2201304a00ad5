/**
 * Helpers for tests against a real PostgreSQL: whether the server is there (a loud skip off CI, a
 * failure under CI=true), a random table prefix per test, dropping everything under a prefix,
 * and counting the round trips a pool makes.
 */
import { randomBytes } from 'node:crypto'
import pg from 'pg'

/** The test server. */
export const PG_URL = process.env.BOTMESH_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test'

/** The test server's address without credentials, for messages. */
export function redactedUrl(url: string = PG_URL): string {
  try {
    const parsed = new URL(url)
    parsed.password = parsed.password ? '***' : ''
    return parsed.toString()
  } catch {
    return '(unparseable BOTMESH_TEST_PG_URL)'
  }
}

/**
 * Resolves true when the test server answers. Off CI a missing server resolves false after a loud
 * line (the caller skips its tests); under CI=true it rejects, so the run fails.
 */
export async function postgresAvailable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3_000 })
  client.on('error', () => {})
  try {
    await client.connect()
    await client.query('SELECT 1')
    return true
  } catch (error) {
    const reason = error instanceof Error ? error.message || String(error) : String(error)
    if (process.env.CI === 'true')
      throw new Error(`PostgreSQL at ${redactedUrl()} is required under CI=true but is not reachable: ${reason}`)
    console.warn(
      `\n${'!'.repeat(100)}\n!!! SKIPPING PostgreSQL tests: no server at ${redactedUrl()} (${reason}).\n` +
        `!!! Start PostgreSQL or set BOTMESH_TEST_PG_URL; under CI=true this fails the run.\n${'!'.repeat(100)}\n`,
    )
    return false
  } finally {
    await client.end().catch(() => {})
  }
}

/** A table prefix no other test uses. */
export function randomTablePrefix(): string {
  return `bmt_${randomBytes(6).toString('hex')}_`
}

/** The test server's URL with extra query parameters (e.g. a unique `application_name`). */
export function pgUrlWith(params: Record<string, string>): string {
  const url = new URL(PG_URL)
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value)
  return url.toString()
}

/** A pool on the test server, with the error listener the caller of an injected pool must attach. */
export function testPool(options: pg.PoolConfig = {}): pg.Pool {
  const pool = new pg.Pool({ connectionString: PG_URL, max: 4, ...options })
  pool.on('error', () => {})
  return pool
}

/** Runs one statement on a short-lived connection of its own (outside any backend's pool). */
export async function adminQuery<R extends pg.QueryResultRow = pg.QueryResultRow>(
  text: string,
  values: unknown[] = [],
): Promise<pg.QueryResult<R>> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 5_000 })
  client.on('error', () => {})
  await client.connect()
  try {
    return await client.query<R>(text, values)
  } finally {
    await client.end().catch(() => {})
  }
}

/** The tables (bare names) that exist under a prefix, in the current schema. */
export async function tablesUnder(prefix: string): Promise<string[]> {
  const { rows } = await adminQuery<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND left(c.relname, length($1)) = $1 ORDER BY 1`,
    [prefix],
  )
  return rows.map((row) => row.name)
}

/** Drops every table and function whose name starts with the prefix. */
export async function dropTablePrefix(prefix: string): Promise<void> {
  if (!/^bmt_[0-9a-f]+_$/.test(prefix)) throw new Error(`refusing to drop tables under a prefix that is not a test prefix: ${prefix}`)
  const tables = await tablesUnder(prefix)
  const { rows: functions } = await adminQuery<{ name: string; args: string }>(
    `SELECT p.proname AS name, pg_get_function_identity_arguments(p.oid) AS args FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
     WHERE n.nspname = current_schema() AND left(p.proname, length($1)) = $1`,
    [prefix],
  )
  const drops = [
    ...(tables.length > 0 ? [`DROP TABLE IF EXISTS ${tables.map((name) => `"${name}"`).join(', ')} CASCADE`] : []),
    ...functions.map((row) => `DROP FUNCTION IF EXISTS "${row.name}"(${row.args}) CASCADE`),
  ]
  if (drops.length > 0) await adminQuery(drops.join(';\n'))
}

/** Counts the queries (round trips) made through `pool.query`, the only way the backend talks to a pool. */
export function countRoundTrips(pool: pg.Pool): { readonly queries: number; reset(): void } {
  let queries = 0
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown
  ;(pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args) => {
    queries++
    return query(...args)
  }
  return {
    get queries() {
      return queries
    },
    reset() {
      queries = 0
    },
  }
}

/** Polls `check` until it returns true, failing after `timeoutMs` with `what`. */
export async function waitFor(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
