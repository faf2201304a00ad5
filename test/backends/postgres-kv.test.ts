/**
 * PostgresKv beyond the conformance suite: concurrent schema creation, compare-and-set races
 * across connections, one round trip per operation, exactly one table with the counts kept in it,
 * the upgrade from the counts table of older versions, prefixes.
 */
import assert from 'node:assert/strict'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import type { KvOp } from '../../src/core/durability/journal/kv.js'
import { ConfigError } from '../../src/core/errors/errors.js'
import { PostgresDurability, PostgresKv, durableTables } from '../../src/backends/postgres/index.js'
import { legacySchemaSql } from './postgres-legacy-schema.js'
import {
  PG_URL,
  adminQuery,
  countRoundTrips,
  dropTablePrefix,
  postgresAvailable,
  randomTablePrefix,
  tablesUnder,
  testPool,
  waitFor,
} from '../../test-utils/postgres.js'
import { useCleanups } from '../../test-utils/lifecycle.js'
import { outboxPut as put } from '../../test-utils/kv-ops.js'

const available = await postgresAvailable()

describe.runIf(available)('PostgresKv', () => {
  const cleanups = useCleanups()

  /** A started store under a fresh prefix, stopped and dropped after the test. */
  async function startedKv(options: { pool?: ReturnType<typeof testPool> } = {}): Promise<PostgresKv> {
    const tablePrefix = randomTablePrefix()
    const kv = new PostgresKv(options.pool ? { pool: options.pool, tablePrefix } : { connectionString: PG_URL, tablePrefix })
    cleanups.push(() => dropTablePrefix(tablePrefix))
    await kv.start()
    cleanups.push(() => kv.stop())
    return kv
  }

  /** The counts as a plain GROUP BY over the journal table sees them. */
  async function countedByScan(kv: PostgresKv, scope: string, collection: string): Promise<Record<string, number>> {
    const { rows } = await adminQuery<{ state: string; n: string }>(
      `SELECT state, count(*) AS n FROM ${kv.tables.durable} WHERE scope = $1 AND collection = $2 GROUP BY state`,
      [scope, collection],
    )
    return Object.fromEntries(rows.map((row) => [row.state, Number(row.n)]))
  }

  /** The functions of the steps a start creates (steps/), by bare name. */
  const stepFunctions = (prefix: string) =>
    Object.values(durableTables(prefix).steps)
      .map((name) => name.slice(1, -1))
      .sort()

  /** Every table, function and trigger whose name starts with the prefix. */
  async function objectsUnder(prefix: string): Promise<{ tables: string[]; functions: string[]; triggers: string[] }> {
    const named = async (catalog: string, column: string) =>
      (
        await adminQuery<{ name: string }>(`SELECT ${column} AS name FROM ${catalog} WHERE left(${column}, length($1)) = $1 ORDER BY 1`, [
          prefix,
        ])
      ).rows.map((row) => row.name)
    return {
      tables: await tablesUnder(prefix),
      functions: (await named('pg_proc', 'proname')).sort(),
      triggers: await named('pg_trigger', 'tgname'),
    }
  }

  it('four replicas starting at once on a new prefix all start, and share one table', async () => {
    const tablePrefix = randomTablePrefix()
    cleanups.push(() => dropTablePrefix(tablePrefix))
    const replicas = Array.from({ length: 4 }, () => new PostgresDurability({ connectionString: PG_URL, tablePrefix }))
    cleanups.push(async () => {
      for (const replica of replicas) await replica.stop()
    })
    await Promise.all(replicas.map((replica) => replica.start()))
    expect(await objectsUnder(tablePrefix)).toEqual({
      tables: [`${tablePrefix}durable`],
      functions: stepFunctions(tablePrefix),
      triggers: [],
    })
    const [written] = await replicas[0]!.kv.write([put('k', 0)])
    expect(written).toEqual({ ok: true, version: 1 })
    const [read] = await replicas[3]!.kv.get('outbox', ['k'])
    expect(read?.value).toEqual({ key: 'k', n: 0 })
  })

  it('inserts of one key racing on several connections: one wins, every loser is told the winner', async () => {
    const kv = await startedKv()
    const racers = Array.from({ length: 12 }, (_, n) => kv.write([put('race', 0, { value: { racer: n } })]))
    const results = (await Promise.all(racers)).map(([result]) => result!)
    const winners = results.flatMap((result, n) => (result.ok ? [n] : []))
    expect(winners).toHaveLength(1)
    for (const result of results) {
      if (result.ok) continue
      assert.ok(result.current, 'a losing insert returns the entry that won')
      expect(result.current.version).toBe(1)
      expect(result.current.value).toEqual({ racer: winners[0] })
    }
  })

  it('updates of one version racing on several connections: one wins, every loser sees version 2', async () => {
    const kv = await startedKv()
    await kv.write([put('race', 0)])
    const racers = Array.from({ length: 12 }, (_, n) => kv.write([put('race', 1, { value: { racer: n }, state: 'sending' })]))
    const results = (await Promise.all(racers)).map(([result]) => result!)
    const winner = results.findIndex((result) => result.ok)
    expect(results.filter((result) => result.ok)).toHaveLength(1)
    for (const result of results) {
      if (result.ok) continue
      expect(result.current?.version).toBe(2)
      expect(result.current?.value).toEqual({ racer: winner })
    }
    expect(await kv.count('outbox')).toEqual({ sending: 1 })
  })

  it('a CAS that waited on the lock of a writer who then won still returns the winner (insert and update)', async () => {
    const tablePrefix = randomTablePrefix()
    const applicationName = `racer_${tablePrefix}`
    cleanups.push(() => dropTablePrefix(tablePrefix))
    // One store per racer, like replicas: one store's group commit would queue its calls on one key.
    const racing = Array.from({ length: 6 }, () => new PostgresKv({ connectionString: PG_URL, tablePrefix, applicationName, poolMax: 1 }))
    for (const racer of racing) {
      await racer.start()
      cleanups.push(() => racer.stop())
    }
    const kv = racing[0]!
    await kv.write([put('updated', 0)])
    const holder = new pg.Client({ connectionString: PG_URL })
    holder.on('error', () => {})
    await holder.connect()
    cleanups.push(() => holder.end())
    const t = kv.tables
    // The holder writes both keys in a transaction it keeps open: the racers' statements start
    // (and take their snapshots) before the winner commits, then wait on its row locks.
    await holder.query('BEGIN')
    await holder.query(
      `INSERT INTO ${t.durable} (scope, collection, key, version, value, state, state_time, due) VALUES ('', 'outbox', 'inserted', 1, '{"winner":true}', 'pending', 1, NULL)`,
    )
    await holder.query(
      `UPDATE ${t.durable} SET version = 2, value = '{"winner":true}' WHERE scope = '' AND collection = 'outbox' AND key = 'updated'`,
    )
    const racers = racing.map((racer, n) => racer.write([n < 3 ? put('inserted', 0) : put('updated', 1)]))
    await waitFor(async () => {
      const { rows } = await adminQuery<{ n: string }>(
        `SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`,
        [applicationName],
      )
      return Number(rows[0]!.n) === racers.length
    }, "every racer to wait on the holder's locks")
    await holder.query('COMMIT')
    for (const [result] of await Promise.all(racers)) {
      assert.ok(result && !result.ok && result.current, 'the racer lost and was told the winner')
      expect(result.current.value).toEqual({ winner: true })
      expect(result.current.version).toBe(result.current.key === 'inserted' ? 1 : 2)
    }
  })

  it('one write call is one round trip and one transaction, and each op keeps its own result', async () => {
    const pool = testPool()
    cleanups.push(() => pool.end())
    const kv = await startedKv({ pool })
    await kv.write([put('old', 0, { state: 'sent', due: null })])
    const trips = countRoundTrips(pool)
    const results = await kv.write([
      put('b', 0),
      put('a', 0),
      put('a', 1, { state: 'sending', due: 5_000 }),
      put('old', 0),
      { op: 'delete', collection: 'outbox', key: 'old', expectVersion: 1 },
      put('ghost', 4),
      put('b', 1, { collection: 'inbox', state: 'dead' }),
    ])
    expect(trips.queries).toBe(1)
    expect(results[0]).toEqual({ ok: true, version: 1 })
    expect(results[1]).toEqual({ ok: true, version: 1 })
    expect(results[2]).toEqual({ ok: true, version: 2 })
    expect(results[3]).toMatchObject({ ok: false, current: { key: 'old', version: 1, state: 'sent' } })
    expect(results[4]).toEqual({ ok: true, version: 0 })
    expect(results[5]).toEqual({ ok: false, current: undefined })
    expect(results[6]).toEqual({ ok: false, current: undefined })
    expect(await kv.count('outbox')).toEqual({ pending: 1, sending: 1 })
  })

  it('values sent several to a message (inlined literals) round-trip exactly, like single writes', async () => {
    const kv = await startedKv()
    const nasty = [
      "it's",
      'back\\slash \\\\ and \\n',
      "E'not an escape' \\' '' $1 $$ $botmesh$",
      'nul \u0000 and control \u0001\u001f',
      'émoji 👋🏽 中文',
      '',
    ]
    const ops: KvOp[] = nasty.map((text, n) =>
      put(`key ${n} ${text.slice(0, 4)}`, 0, {
        value: { text, n, nested: { list: [text, null, -0.5, 1e21] } },
        stateTime: 1.5 + n,
        due: n % 2 ? null : -n - 0.25,
      }),
    )
    const results = await kv.write(ops)
    expect(results.every((result) => result.ok)).toBe(true)
    const read = await kv.get(
      'outbox',
      ops.map((op) => op.key),
    )
    ops.forEach((op, n) => {
      assert.equal(op.op, 'put')
      expect(read[n]).toEqual({ key: op.key, version: 1, value: op.value, state: op.state, stateTime: op.stateTime, due: op.due })
    })
  })

  it('every operation is one round trip', async () => {
    const pool = testPool()
    cleanups.push(() => pool.end())
    const trips = countRoundTrips(pool)
    const kv = await startedKv({ pool })
    const perOperation: Record<string, number> = { start: trips.queries }
    const measure = async (name: string, operation: () => Promise<unknown>) => {
      trips.reset()
      await operation()
      perOperation[name] = trips.queries
    }
    await measure('insert', () => kv.write([put('k', 0)]))
    await measure('insert that loses', () => kv.write([put('k', 0)]))
    await measure('update', () => kv.write([put('k', 1, { state: 'sending' })]))
    await measure('update that loses', () => kv.write([put('k', 1)]))
    await measure('write of 50 ops', () => kv.write(Array.from({ length: 50 }, (_, n) => put(`many${n}`, 0))))
    await measure('get of 10 keys', () =>
      kv.get(
        'outbox',
        Array.from({ length: 10 }, (_, n) => `many${n}`),
      ),
    )
    await measure('due', () => kv.due('outbox', 10_000, 100))
    await measure('list', () => kv.list('outbox', { state: 'pending', limit: 20 }))
    await measure('list after a cursor', () =>
      kv.list('outbox', { state: 'pending', limit: 20, after: { stateTime: 1_000, key: 'many3' } }),
    )
    await measure('count', () => kv.count('outbox'))
    await measure('purge', () => kv.purge('outbox', 'pending', 2_000, 10))
    await measure('delete', () => kv.write([{ op: 'delete', collection: 'outbox', key: 'k', expectVersion: 2 }]))
    await measure('now', () => kv.now())
    await measure('scopes', () => kv.scopes())
    console.log('PostgreSQL round trips per operation:', perOperation)
    expect(perOperation).toEqual(Object.fromEntries(Object.keys(perOperation).map((name) => [name, 1])))
  })

  it('counts stay exact when writers on many connections race over the same keys', async () => {
    const pool = testPool({ max: 8 })
    cleanups.push(() => pool.end())
    const kv = await startedKv({ pool })
    const states = ['pending', 'sending', 'sent', 'failed', 'dead']
    const keys = Array.from({ length: 12 }, (_, n) => `race${n}`)
    // Each worker reads a key and moves it on with a compare-and-set; half of them lose their race.
    const worker = async (seed: number) => {
      for (let step = 0; step < 30; step++) {
        const key = keys[(seed * 7 + step * 5) % keys.length]!
        const [current] = await kv.get('outbox', [key])
        const state = states[(seed + step) % states.length]!
        if (!current) await kv.write([put(key, 0, { state })])
        else if (step % 6 === 5) await kv.write([{ op: 'delete', collection: 'outbox', key, expectVersion: current.version }])
        else if (step % 4 === 3) await kv.purge('outbox', current.state, Number.MAX_SAFE_INTEGER, 2)
        else await kv.write([put(key, current.version, { state })])
      }
    }
    await Promise.all(Array.from({ length: 8 }, (_, seed) => worker(seed)))
    expect(await kv.count('outbox')).toEqual(await countedByScan(kv, '', 'outbox'))
  })

  it('counts stay exact through writes, heartbeats, purges, deletes and scopes', async () => {
    const kv = await startedKv()
    const scoped = kv.scope('bot-a')
    await scoped.write(Array.from({ length: 30 }, (_, n) => put(`k${n}`, 0, { state: n % 3 === 0 ? 'dead' : 'pending', stateTime: n })))
    await scoped.write([put('k1', 1, { state: 'sending' }), put('k2', 1, { state: 'sending' })])
    // A heartbeat keeps the state: the counts do not move.
    await scoped.write([put('k1', 2, { state: 'sending', due: 99_000 })])
    expect(await scoped.count('outbox')).toEqual(await countedByScan(kv, 'bot-a', 'outbox'))
    expect(await scoped.purge('outbox', 'dead', 20, 4)).toBe(4)
    const versions = await scoped.get('outbox', ['k4', 'k5', 'k27'])
    const deleted = await scoped.write(
      versions.map((entry) => ({ op: 'delete' as const, collection: 'outbox', key: entry!.key, expectVersion: entry!.version })),
    )
    expect(deleted.every((result) => result.ok)).toBe(true)
    // A delete that loses its race moves no counter.
    expect(await scoped.write([{ op: 'delete', collection: 'outbox', key: 'k7', expectVersion: 9 }])).toMatchObject([{ ok: false }])
    const counts = await scoped.count('outbox')
    expect(counts).toEqual(await countedByScan(kv, 'bot-a', 'outbox'))
    expect(counts).toEqual({ pending: 16, sending: 2, dead: 5 })
    expect(await kv.count('outbox')).toEqual({})
    expect(await kv.scopes()).toEqual(['bot-a'])
  })

  it('a journal of an older version (counts table, function, triggers) comes down to one table on start, its counts kept', async () => {
    const tablePrefix = randomTablePrefix()
    cleanups.push(() => dropTablePrefix(tablePrefix))
    const probe = new PostgresKv({ connectionString: PG_URL, tablePrefix })
    const t = probe.tables
    const row = (scope: string, key: string, state: string) => `('${scope}', 'outbox', '${key}', 1, '{}', '${state}', 5, NULL)`
    await adminQuery(legacySchemaSql(t))
    await adminQuery(`INSERT INTO ${t.durable} (scope, collection, key, version, value, state, state_time, due) VALUES
      ${[row('a', 'k1', 'pending'), row('a', 'k2', 'dead'), row('a', 'k3', 'dead'), row('b', 'k1', 'sent')].join(', ')}`)
    expect((await objectsUnder(tablePrefix)).triggers).toHaveLength(3)
    // A reader (the CLI) brings it up to date too: its counts would otherwise read as zero.
    const reader = new PostgresKv({ connectionString: PG_URL, tablePrefix, mustExist: true })
    await reader.start()
    cleanups.push(() => reader.stop())
    expect(await reader.scope('a').count('outbox')).toEqual({ pending: 1, dead: 2 })
    expect(await reader.scopes()).toEqual(['a', 'b'])
    expect(await objectsUnder(tablePrefix)).toEqual({
      tables: [`${tablePrefix}durable`],
      functions: stepFunctions(tablePrefix),
      triggers: [],
    })
    const writer = new PostgresKv({ connectionString: PG_URL, tablePrefix })
    await writer.start()
    cleanups.push(() => writer.stop())
    await writer.scope('a').write([put('k4', 0, { state: 'dead' })])
    expect(await writer.scope('a').count('outbox')).toEqual({ pending: 1, dead: 3 })
    expect(await writer.scope('b').count('outbox')).toEqual({ sent: 1 })
    // Idempotent: a second start finds nothing to do and counts nothing twice.
    await writer.stop()
    await writer.start()
    expect(await writer.scope('a').count('outbox')).toEqual({ pending: 1, dead: 3 })
  })

  it('a collection named like the counter rows is refused, so entries and counts never mix', async () => {
    const kv = await startedKv()
    await expect(kv.write([put('k', 0, { collection: '#count:outbox' })])).rejects.toThrow(/reserved for the counts/)
  })

  it('keys order by code point, as in every other backend', async () => {
    const kv = await startedKv()
    await kv.write(['b', 'B', 'a', 'Z', 'é', '10', '9'].map((key) => put(key, 0, { state: 'dead' })))
    const listed = await kv.list('outbox', { state: 'dead', limit: 10 })
    expect(listed.map((entry) => entry.key)).toEqual(['10', '9', 'B', 'Z', 'a', 'b', 'é'])
  })

  it('refuses a table prefix that is not a plain identifier, before any SQL runs', () => {
    for (const tablePrefix of ['', 'has-dash', 'x"; DROP TABLE users; --', '1starts_with_digit', 'x'.repeat(41), 'ünïcode']) {
      expect(() => new PostgresDurability({ connectionString: PG_URL, tablePrefix })).toThrow(ConfigError)
    }
    expect(() => new PostgresDurability({ connectionString: PG_URL, tablePrefix: 'Valid_Prefix_9' })).not.toThrow()
  })
})
