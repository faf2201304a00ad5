/**
 * A schema of its own on the bench's PostgreSQL for a queue peer's run (pg-boss, graphile-worker):
 * its name, a connection to ask the store how far a drain got, and the drop of the schema with
 * everything in it when the run ends.
 */
import { randomBytes } from 'node:crypto'

/** A new schema name under `prefix` (created by the peer) and the connection that drops it. */
export async function scratchSchema(url, prefix) {
  const { default: pg } = await import('pg')
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  const name = `${prefix}_${randomBytes(6).toString('hex')}`
  return {
    name,
    /** The `count` column of the one row `sql` returns. */
    async count(sql, params = []) {
      const { rows } = await client.query(sql, params)
      return Number(rows[0].count)
    },
    /** Drops the schema and closes the connection. */
    async drop() {
      try {
        await client.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`)
      } finally {
        await client.end()
      }
    },
  }
}
