/**
 * The raw ceilings of the server stores (see ceiling.ts): single-INSERT transactions on
 * PostgreSQL, pgbench-like, and scripted calls on Redis, each with the driver botmesh uses. Each
 * creates one table or one key under a random name and removes it when it ends.
 */
import { randomBytes } from 'node:crypto'
import type { Client, ClientConfig } from 'pg'
import { ceilingFigures, timed, type CeilingFigures } from './closed-loop.js'

/** How much a server ceiling runs. */
export interface ServerCeilingOptions {
  operations: number
  clients: number
  connectTimeoutMs: number
}

/** One HSET per call: the smallest scripted write, as botmesh's Redis journal sends its writes as scripts. */
const REDIS_SCRIPT = "redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) return 1"

/** Single-INSERT transactions (autocommit), `synchronous_commit = on`, one connection per client. */
export async function postgresInserts(connectionString: string, options: ServerCeilingOptions, body: string): Promise<CeilingFigures> {
  const module = await import('pg')
  const pg = (module as unknown as { default?: typeof import('pg') }).default ?? module
  const config: ClientConfig = {
    connectionString,
    connectionTimeoutMillis: options.connectTimeoutMs,
    application_name: 'botmesh-bench-ceiling',
  }
  const table = `botmesh_ceiling_${randomBytes(5).toString('hex')}`
  const admin = new pg.Client(config)
  await admin.connect().catch(async (error: unknown) => {
    await admin.end().catch(() => {})
    throw error
  })
  const clients: Client[] = []
  try {
    await admin.query(`CREATE TABLE ${table} (id bigint PRIMARY KEY, body text NOT NULL)`)
    for (let n = 0; n < options.clients; n++) {
      const client = new pg.Client(config)
      clients.push(client)
      await client.connect()
      await client.query('SET synchronous_commit = on')
    }
    const insert = `INSERT INTO ${table} (id, body) VALUES ($1, $2)`
    const seconds = await timed(options.operations, options.clients, async (n, client) => {
      await clients[client]!.query({ name: 'ceiling-insert', text: insert, values: [n, body] })
    })
    return ceilingFigures(
      'single-INSERT transactions, synchronous_commit on (pgbench-like)',
      'transaction',
      options.operations,
      options.clients,
      seconds,
    )
  } finally {
    await Promise.allSettled(clients.map((client) => client.end()))
    await admin.query(`DROP TABLE IF EXISTS ${table}`).finally(() => admin.end())
  }
}

/** One EVALSHA of an HSET per operation, `clients` callers at once on one connection. */
export async function redisScriptedCalls(url: string, options: ServerCeilingOptions, body: string): Promise<CeilingFigures> {
  const { Redis } = await import('ioredis')
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: options.connectTimeoutMs, maxRetriesPerRequest: 1 })
  const key = `botmesh-ceiling-${randomBytes(6).toString('hex')}`
  try {
    await redis.connect()
    const sha = (await redis.script('LOAD', REDIS_SCRIPT)) as string
    const seconds = await timed(options.operations, options.clients, async (n) => {
      await redis.evalsha(sha, 1, key, String(n), body)
    })
    return ceilingFigures('scripted calls (EVALSHA of one HSET) on one connection', 'call', options.operations, options.clients, seconds)
  } finally {
    if (redis.status === 'ready') await redis.del(key).catch(() => {})
    redis.disconnect()
  }
}
