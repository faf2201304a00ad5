/**
 * PostgreSQL journal on a million records: fills one scope's outbox with 1,000,000 entries under
 * a throwaway table prefix (server-side multi-row inserts, 100k a statement, then the counter rows
 * those inserts bypassed, in one GROUP BY), then times what an operator's tools and the sweeper ask
 * of it: count(), scopes() and the whole of `stats`' reads, the first page of the DLQ (`dlq list`),
 * a deep page, due(), get() and single writes. Drops the table at the end.
 *
 *   node --import ./test-utils/ts-loader.mjs bench/postgres-million.ts
 *
 * BOTMESH_TEST_PG_URL picks the server (default postgres://postgres@127.0.0.1:5432/test);
 * BENCH_RECORDS changes the number of records. Prints figures; asserts nothing.
 */
import { randomBytes } from 'node:crypto'
import { PostgresDurability, PostgresKv } from '../src/backends/postgres/index.js'
import { collectStats } from '../src/operator/stats.js'
import { chooseScope } from '../src/operator/scope.js'

const url = process.env.BOTMESH_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const records = Number(process.env.BENCH_RECORDS ?? 1_000_000)
const chunk = 100_000
const runs = 30
const scope = 'bench'
const t0 = 1_700_000_000_000

const tablePrefix = `bench_${randomBytes(4).toString('hex')}_`
const root = new PostgresKv({ connectionString: url, tablePrefix, statementTimeoutMs: 600_000 })
const kv = root.scope(scope)
const t = root.tables

/** The state of record g: 60% sent, 30% dead (the DLQ), 9% failed and 1% pending (both due). */
const STATE_OF = `CASE WHEN g % 10 < 6 THEN 'sent' WHEN g % 10 < 9 THEN 'dead' WHEN g % 100 < 99 THEN 'failed' ELSE 'pending' END`

function fillStatement(from: number, to: number): string {
  return `INSERT INTO ${t.durable} (scope, collection, key, version, value, state, state_time, due)
SELECT '${scope}', 'outbox', 'reminder:' || g, 3,
  json_build_object(
    'key', 'reminder:' || g, 'state', state, 'chatId', 'chat-' || (g % 5000),
    'payload', json_build_object('text', 'Your appointment is tomorrow at 9 (reminder ' || g || ')'),
    'fingerprint', NULL, 'keySource', 'explicit', 'inboundId', NULL, 'ordinal', NULL, 'previousPart', NULL,
    'attempts', 1, 'nextAttemptAt', due, 'lease', NULL, 'fencingToken', 1,
    'providerMessageId', CASE WHEN state = 'sent' THEN 'wamid.' || g END,
    'lastError', CASE WHEN state IN ('dead', 'failed') THEN json_build_object('message', 'recipient unreachable', 'code', 'RECIPIENT_UNREACHABLE', 'at', ${t0} + g) END,
    'createdAt', ${t0} + g, 'updatedAt', ${t0} + g
  )::text,
  state, ${t0} + g, due
FROM (
  SELECT g, ${STATE_OF} AS state,
    CASE WHEN ${STATE_OF} IN ('failed', 'pending') THEN (${t0} + 2 * g)::float8 END AS due
  FROM generate_series(${from}, ${to}) AS g
) source`
}

async function time<T>(name: string, operation: () => Promise<T>, describe: (result: T) => string): Promise<void> {
  const started = performance.now()
  const first = await operation()
  const cold = performance.now() - started
  const samples: number[] = []
  for (let run = 0; run < runs; run++) {
    const start = performance.now()
    await operation()
    samples.push(performance.now() - start)
  }
  samples.sort((a, b) => a - b)
  const median = samples[Math.floor(runs / 2)]!
  const p95 = samples[Math.floor(runs * 0.95)]!
  console.log(
    `${name.padEnd(34)} first ${cold.toFixed(2).padStart(7)} ms   median ${median.toFixed(2).padStart(6)} ms   p95 ${p95.toFixed(2).padStart(6)} ms   ${describe(first)}`,
  )
}

async function main(): Promise<void> {
  await root.start()
  try {
    console.log(`PostgreSQL journal, ${records.toLocaleString('en')} outbox records in one scope (tables ${tablePrefix}*)`)
    const fillStarted = performance.now()
    for (let from = 1; from <= records; from += chunk) {
      await root.connection.query(fillStatement(from, Math.min(records, from + chunk - 1)))
    }
    // The fill bypasses the statements that keep the counter rows: write what they would hold.
    await root.connection.query(`INSERT INTO ${t.durable} (scope, collection, key, version, value, state, state_time, due)
SELECT scope, '#count:' || collection, state || '/0', 1, count(*)::text, state, 0, NULL FROM ${t.durable} GROUP BY scope, collection, state`)
    const fillMs = performance.now() - fillStarted
    console.log(
      `fill: ${(fillMs / 1000).toFixed(1)} s (${Math.round(records / (fillMs / 1000)).toLocaleString('en')} records/s, server-side INSERT ... SELECT, then the counter rows)`,
    )
    const analyzeStarted = performance.now()
    await root.connection.query(`ANALYZE ${t.durable}`)
    console.log(`analyze: ${((performance.now() - analyzeStarted) / 1000).toFixed(1)} s (what autovacuum does after a bulk load)`)
    const size = await root.connection.query<{ size: string }>(`SELECT pg_size_pretty(pg_total_relation_size('${t.durable}')) AS size`)
    console.log(`table + indexes: ${size.rows[0]!.size}\n`)

    const now = t0 + 2 * records
    const deep = await kv.list('outbox', { state: 'dead', limit: 1, after: { stateTime: t0 + Math.floor(records / 2), key: '' } })
    const cursor = { stateTime: deep[0]!.stateTime, key: deep[0]!.key }
    await time(
      'count()',
      () => kv.count('outbox'),
      (counts) => JSON.stringify(counts),
    )
    await time(
      'scopes()  [stats: which scope]',
      () => root.scopes(),
      (scopes) => JSON.stringify(scopes),
    )
    const durability = new PostgresDurability({ connectionString: url, tablePrefix })
    await durability.start()
    try {
      await time(
        'stats: scope + counts + oldest + instances',
        async () => collectStats(durability.journal(await chooseScope(durability, {})), now),
        (stats) => `outbox ${stats.outbox.total}, dead ${stats.dead.outbox}`,
      )
    } finally {
      await durability.stop()
    }
    await time(
      'list(dead, 50)  [dlq list, page 1]',
      () => kv.list('outbox', { state: 'dead', limit: 50 }),
      (page) => `${page.length} entries`,
    )
    await time(
      'list(dead, 50) after the middle',
      () => kv.list('outbox', { state: 'dead', limit: 50, after: cursor }),
      (page) => `${page.length} entries`,
    )
    await time(
      'list(dead, 50, before: t0+1000)',
      () => kv.list('outbox', { state: 'dead', limit: 50, before: t0 + 1_000 }),
      (page) => `${page.length} entries`,
    )
    await time(
      'due(now, 100)  [sweeper]',
      () => kv.due('outbox', now, 100),
      (due) => `${due.length} entries`,
    )
    await time(
      'get(10 keys)',
      () =>
        kv.get(
          'outbox',
          Array.from({ length: 10 }, (_, n) => `reminder:${n * 99_991 + 7}`),
        ),
      (got) => `${got.filter(Boolean).length} found`,
    )
    let sequence = 0
    await time(
      'write: insert (CAS, version 0)',
      () =>
        kv.write([
          {
            op: 'put',
            collection: 'outbox',
            key: `new:${sequence++}`,
            expectVersion: 0,
            value: { text: 'hi' },
            state: 'pending',
            stateTime: now,
            due: now,
          },
        ]),
      (r) => JSON.stringify(r[0]),
    )
    let version = 3
    await time(
      'write: update (CAS, state change)',
      () =>
        kv.write([
          {
            op: 'put',
            collection: 'outbox',
            key: 'reminder:9',
            expectVersion: version++,
            value: { text: 'again' },
            state: version % 2 ? 'pending' : 'sending',
            stateTime: now,
            due: now,
          },
        ]),
      (r) => JSON.stringify(r[0]),
    )
    await time(
      'now()',
      () => kv.now(),
      () => '',
    )
    await time(
      'reference: count(*) GROUP BY state',
      () =>
        root.connection.query(`SELECT state, count(*) FROM ${t.durable} WHERE scope = '${scope}' AND collection = 'outbox' GROUP BY state`),
      (r) => `${r.rows.length} states (what count() would cost without the counter rows)`,
    )
  } finally {
    await root.connection.query(`DROP TABLE IF EXISTS ${t.durable} CASCADE`)
    await root.stop()
    console.log(`\ndropped ${tablePrefix}*`)
  }
}

await main()
