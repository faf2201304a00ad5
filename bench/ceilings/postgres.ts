/**
 * PostgreSQL's raw ceiling (`npm run bench`, measure.ts): single-INSERT transactions, pgbench-like,
 * with the driver botmesh uses. It creates one table under a random name and drops it when it ends.
 */
import { randomBytes } from 'node:crypto'
import type { Client, ClientConfig } from 'pg'
import { loadDriver } from '../../src/core/platform/driver.js'
import { ceilingFigures, timed, type CeilingFigures, type CeilingRun } from './timed.js'

/** Single-INSERT transactions (autocommit), `synchronous_commit = on`, one connection per client. */
export async function postgresInserts(connectionString: string, options: CeilingRun, body: string): Promise<CeilingFigures> {
  const module = await loadDriver({ packageName: 'pg', neededBy: 'the PostgreSQL ceiling', load: () => import('pg') })
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
