/**
 * The PostgreSQL journal keeps its write plans primary-key lookups as the table grows
 * (planner-statistics.ts, batch-statement.ts): the store analyzes a table it has grown past each
 * doubling, and the batch write keeps one generic plan per connection that reads no more of the
 * table than the keys it writes. The policy runs on a recorded fake; the plans on the real server.
 */
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { PostgresKv } from '../../src/backends/postgres/index.js'
import { POSTGRES_LIMITS } from '../../src/backends/postgres/limits.js'
import { PlannerStatistics } from '../../src/backends/postgres/planner-statistics.js'
import { prepare } from '../../src/backends/postgres/prepared.js'
import { durableTables } from '../../src/backends/postgres/tables.js'
import { adminQuery, dropTablePrefix, PG_URL, postgresAvailable, randomTablePrefix } from '../../test-utils/postgres.js'
import { useCleanups } from '../../test-utils/lifecycle.js'
import { outboxPut as put } from '../../test-utils/kv-ops.js'

const MIN = POSTGRES_LIMITS.analyzeInsertedRowsMin

/** A PlannerStatistics on a fake server whose table holds `rows` (what pg_class.reltuples reports). */
function recorded(rows: number[], analyze: () => Promise<void> = async () => {}) {
  const statements: string[] = []
  const errors: string[] = []
  const statistics = new PlannerStatistics(
    durableTables('t_'),
    async (sql) => {
      statements.push(sql.startsWith('ANALYZE') ? sql : 'reltuples')
      if (sql.startsWith('ANALYZE')) {
        await analyze()
        return []
      }
      return [{ rows: rows.shift() ?? 0 }]
    },
    { error: (message) => errors.push(message) },
  )
  return { statistics, statements, errors }
}

describe('PlannerStatistics', () => {
  it('analyzes a new table once this process has inserted the minimum, then at each doubling', async () => {
    const { statistics, statements } = recorded([0, MIN, 2 * MIN])
    statistics.noteInserted(MIN - 1)
    await statistics.settled()
    expect(statements).toEqual([])
    statistics.noteInserted(1)
    await statistics.settled()
    expect(statements).toEqual(['reltuples', 'ANALYZE "t_durable"', 'reltuples'])
    // The table now holds MIN rows: the next analysis waits for MIN more.
    statistics.noteInserted(MIN - 1)
    await statistics.settled()
    expect(statements).toHaveLength(3)
    statistics.noteInserted(1)
    await statistics.settled()
    expect(statements.slice(3)).toEqual(['ANALYZE "t_durable"', 'reltuples'])
    statistics.noteInserted(2 * MIN - 1)
    await statistics.settled()
    expect(statements).toHaveLength(5)
  })

  it('leaves a table that was already large alone until this process has doubled it', async () => {
    const { statistics, statements } = recorded([50 * MIN, 100 * MIN])
    statistics.noteInserted(MIN)
    await statistics.settled()
    expect(statements).toEqual(['reltuples'])
    statistics.noteInserted(49 * MIN - 1)
    await statistics.settled()
    expect(statements).toEqual(['reltuples'])
    statistics.noteInserted(1)
    await statistics.settled()
    expect(statements).toEqual(['reltuples', 'ANALYZE "t_durable"', 'reltuples'])
  })

  it('runs one analysis at a time, and a failure is logged once and tried again a doubling later', async () => {
    let fail = true
    let release!: () => void
    const { statistics, statements, errors } = recorded([0, 0, 0, 0], async () => {
      await new Promise<void>((resolve) => (release = resolve))
      if (fail) throw new Error('permission denied to analyze')
    })
    statistics.noteInserted(MIN)
    await new Promise((resolve) => setImmediate(resolve))
    // Inserts while it runs start no second one.
    statistics.noteInserted(5 * MIN)
    release()
    await statistics.settled()
    expect(statements.filter((sql) => sql.startsWith('ANALYZE'))).toHaveLength(1)
    expect(errors).toHaveLength(1)
    expect(errors[0]).toMatch(/could not ANALYZE "t_durable" \(permission denied to analyze\)/)
    // Tried again after another MIN inserts (and the failure is not logged twice).
    statistics.noteInserted(MIN)
    await new Promise((resolve) => setImmediate(resolve))
    release()
    await statistics.settled()
    expect(statements.filter((sql) => sql.startsWith('ANALYZE'))).toHaveLength(2)
    expect(errors).toHaveLength(1)
    fail = false
    statistics.noteInserted(MIN)
    await new Promise((resolve) => setImmediate(resolve))
    release()
    await statistics.settled()
    expect(statements.filter((sql) => sql.startsWith('ANALYZE'))).toHaveLength(3)
  })
})

const available = await postgresAvailable()

describe.runIf(available)('PostgreSQL write plans as the table grows', () => {
  const cleanups = useCleanups()

  it('the store analyzes the table it grew, and the batch write then keeps one generic plan of primary-key lookups', async () => {
    const tablePrefix = randomTablePrefix()
    cleanups.push(() => dropTablePrefix(tablePrefix))
    const kv = new PostgresKv({ connectionString: PG_URL, tablePrefix })
    await kv.start()
    cleanups.push(() => kv.stop())
    const table = kv.tables.durableName
    const planner = async () =>
      (
        await adminQuery<{ rows: number; collections: string }>(
          `SELECT reltuples::float8 AS rows, (SELECT count(*) FROM pg_stats WHERE tablename = $1 AND attname = 'collection') AS collections
           FROM pg_class WHERE relname = $1`,
          [table],
        )
      ).rows[0]!

    expect(await planner()).toEqual({ rows: -1, collections: '0' })
    const batch = (from: number) => Array.from({ length: 100 }, (_, n) => put(`k${from + n}`, 0))
    for (let from = 0; from < MIN; from += 100) await kv.write(batch(from))
    // stop() waits for the analysis the last write started.
    await kv.stop()
    const seen = await planner()
    expect(seen.rows).toBeGreaterThanOrEqual(MIN)
    expect(seen.collections).toBe('1')

    // A connection of its own runs the batch write as the store does: a named statement, a few
    // ops a call (a message's reply marked sent and its inbound completed), each time other keys.
    const { WRITE_BATCH } = prepare(kv.tables)
    const client = new pg.Client({ connectionString: PG_URL })
    await client.connect()
    cleanups.push(() => client.end())
    const columns = (keys: string[]) => [
      keys.map((_, n) => n),
      keys.map(() => ''),
      keys.map(() => 'outbox'),
      keys,
      keys.map(() => 0),
      keys.map((key) => JSON.stringify({ key })),
      keys.map(() => 'pending'),
      keys.map(() => 1),
      keys.map(() => null),
    ]
    for (let round = 0; round < 10; round++) {
      const keys = [`more-${round}-a`, `more-${round}-b`]
      await client.query({ name: WRITE_BATCH.name, text: WRITE_BATCH.text, values: columns(keys) })
    }
    const { rows } = await client.query<{ generic_plans: string; custom_plans: string }>(
      'SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = $1',
      [WRITE_BATCH.name],
    )
    // After PostgreSQL's five trial custom plans, the generic plan is kept: no planning per call.
    expect(Number(rows[0]!.generic_plans)).toBeGreaterThanOrEqual(5)
    // Array literals of unknown type, which take each parameter's type.
    const element = (value: unknown) => (value === null ? 'NULL' : `"${String(value).replace(/["\\]/g, (c) => `\\${c}`)}"`)
    const literal = (values: unknown[]) => `'{${values.map(element).join(',')}}'`
    const explained = await client.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN EXECUTE ${WRITE_BATCH.name}(${columns(['k1', 'new-key']).map(literal).join(', ')})`,
    )
    const plan = explained.rows.map((row) => row['QUERY PLAN']).join('\n')
    expect(plan).not.toMatch(/Seq Scan/)
    expect(plan).not.toMatch(new RegExp(`Index Scan using "?${table}_state`))
    expect(plan).toMatch(new RegExp(`Index Scan using "?${table}_pkey`))
  })
})
