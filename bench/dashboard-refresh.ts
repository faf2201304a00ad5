/**
 * How long one dashboard refresh takes on a journal of a million records, on SQLite and on
 * PostgreSQL (issue 6; DESIGN §7 and §9). A refresh is `takeSnapshot`: the index counts of both
 * journals, the oldest pending record of each, every instance's heartbeat, a page of leases and
 * the first page of each dead-letter panel (inbox DLQ, outbox DLQ, unknown sends). It is timed
 * as the dashboard makes it: the default view, a text filter that matches rarely (each panel
 * reads at most `filterScanMax` records), and a deep page of a DLQ (from a cursor mid-lane).
 *
 * Half the records are inbound, half are sends, in every state (94% done/sent, 3% / 2% dead,
 * 1% unknown sends, 1% pending, 1% failed, 1% leased with half the leases expired), plus three
 * instances (two live, one gone). SQLite is filled with `journal.write` batches of 10,000 (one
 * transaction each) in a temp dir; PostgreSQL with server-side INSERT … SELECT under a throwaway
 * table prefix. Both are removed at the end. Prints figures; asserts nothing.
 *
 *   node --import ./test-utils/ts-loader.mjs bench/dashboard-refresh.ts [--records 1000000] [--only sqlite|postgres] [--runs 30]
 *
 * BOTMESH_TEST_PG_URL picks the PostgreSQL server (default postgres://postgres@127.0.0.1:5432/test).
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PostgresDurability } from '../src/backends/postgres/index.js'
import { SQLiteDurability } from '../src/backends/sqlite/index.js'
import type { DurabilityBackend, Journal, JournalWrite } from '../src/core/durability/journal/backend.js'
import type { InboxState, InstanceRecord, OutboxState } from '../src/core/durability/journal/records.js'
import { inboxRecord, outboxRecord } from '../src/testing/conformance/fixtures.js'
import { DEAD_PANELS, takeSnapshot, type SnapshotQuery } from '../src/tui/io/snapshot.js'

const args = process.argv.slice(2)
const option = (name: string) => {
  const at = args.indexOf(`--${name}`)
  return at === -1 ? undefined : args[at + 1]
}
const RECORDS = Number(option('records') ?? 1_000_000)
const RUNS = Number(option('runs') ?? 30)
const ONLY = option('only')
const SCOPE = 'acme/prod/bench/default'
const T0 = 1_700_000_000_000
const BATCH = 10_000
const LEASE_MS = 60_000

/** State of the n-th record of a journal, and whether its lease (if any) has expired. */
function inboxState(n: number): InboxState {
  const bucket = n % 100
  return bucket < 94 ? 'done' : bucket < 97 ? 'dead' : bucket < 98 ? 'pending' : bucket < 99 ? 'failed' : 'processing'
}
function outboxState(n: number): OutboxState {
  const bucket = n % 100
  return bucket < 94
    ? 'sent'
    : bucket < 96
      ? 'dead'
      : bucket < 97
        ? 'unknown'
        : bucket < 98
          ? 'pending'
          : bucket < 99
            ? 'failed'
            : 'sending'
}

function writesOf(from: number, to: number, now: number): JournalWrite[] {
  const writes: JournalWrite[] = []
  for (let n = from; n < to; n++) {
    const at = T0 + n * 10
    const error = { message: 'recipient unreachable', code: 'RECIPIENT_UNREACHABLE', at }
    if (n % 2 === 0) {
      const state = inboxState(n >> 1)
      const lease =
        state === 'processing'
          ? { owner: 'bench-1', token: n, expiresAt: now + ((n >> 1) % 2 ? LEASE_MS : -LEASE_MS), acquiredAt: now - 1_000 }
          : null
      const record = inboxRecord(`wamid.${n.toString(36)}`, {
        state,
        chatId: `55119${String(n % 100_000).padStart(8, '0')}`,
        attempts: state === 'dead' ? 5 : 1,
        nextAttemptAt: state === 'pending' || state === 'failed' ? at + 60_000 : null,
        lease,
        fencingToken: lease ? n : 0,
        lastError: state === 'dead' || state === 'failed' ? error : null,
        createdAt: at,
        updatedAt: at,
      })
      writes.push({ kind: 'inbox', record, expectVersion: 0 })
    } else {
      const state = outboxState(n >> 1)
      const lease =
        state === 'sending'
          ? { owner: 'bench-1', token: n, expiresAt: now + ((n >> 1) % 2 ? LEASE_MS : -LEASE_MS), acquiredAt: now - 1_000 }
          : null
      const record = outboxRecord(`wamid.${(n - 1).toString(36)}:0`, {
        state,
        chatId: `55119${String(n % 100_000).padStart(8, '0')}`,
        payload: { text: `Your order #${n} has shipped and will arrive tomorrow.` },
        keySource: 'derived',
        inboundId: `wamid.${(n - 1).toString(36)}`,
        ordinal: 0,
        attempts: state === 'dead' ? 6 : 1,
        nextAttemptAt: state === 'pending' || state === 'failed' ? at + 60_000 : null,
        lease,
        fencingToken: lease ? n : 0,
        providerMessageId: state === 'sent' ? `wamid.out.${n}` : null,
        lastError: state === 'dead' || state === 'failed' ? error : null,
        createdAt: at,
        updatedAt: at,
      })
      writes.push({ kind: 'outbox', record, expectVersion: 0 })
    }
  }
  return writes
}

function instanceWrites(now: number): JournalWrite[] {
  const instance = (id: string, live: boolean): InstanceRecord => ({
    instanceId: id,
    botId: 'bench',
    host: id.split('/')[0]!,
    pid: 1_000,
    startedAt: now - 3_600_000,
    lastBeatAt: live ? now - 1_000 : now - 120_000,
    lastSweepAt: now - 2_000,
    expiresAt: live ? now + 15_000 : now - 105_000,
    metrics: { inboundJournaled: 500_000, outboxJournaled: 500_000, inboundDead: 15_000, outboxDead: 10_000 },
  })
  return [instance('host-1/bench/default', true), instance('host-2/bench/default', true), instance('host-3/bench/default', false)].map(
    (record) => ({ kind: 'instances' as const, record, expectVersion: 0 }),
  )
}

async function fillByBatches(journal: Journal, now: number): Promise<void> {
  for (let from = 0; from < RECORDS; from += BATCH) {
    const results = await journal.write('operator.import', writesOf(from, Math.min(RECORDS, from + BATCH), now))
    if (results.some((result) => !result.ok)) throw new Error(`the fill was refused at ${from}`)
    if (process.stdout.isTTY)
      process.stdout.write(`\r  filling: ${Math.min(RECORDS, from + BATCH).toLocaleString('en')}/${RECORDS.toLocaleString('en')}`)
  }
  if (process.stdout.isTTY) process.stdout.write('\n')
}

/** Median, p95 and max of `RUNS` runs after a first (cold) one. */
async function time(operation: () => Promise<unknown>): Promise<{ first: number; median: number; p95: number; max: number }> {
  let started = performance.now()
  await operation()
  const first = performance.now() - started
  const samples: number[] = []
  for (let run = 0; run < RUNS; run++) {
    started = performance.now()
    await operation()
    samples.push(performance.now() - started)
  }
  samples.sort((a, b) => a - b)
  return { first, median: samples[Math.floor(RUNS / 2)]!, p95: samples[Math.min(RUNS - 1, Math.floor(RUNS * 0.95))]!, max: samples.at(-1)! }
}

async function measure(backend: DurabilityBackend): Promise<void> {
  const first: SnapshotQuery = { scope: SCOPE, filter: '', pages: { inboxDead: undefined, outboxDead: undefined, unknown: undefined } }
  const view = await takeSnapshot(backend, first)
  const total = Object.values(view.counts.inbox).reduce((a, b) => a + b, 0) + Object.values(view.counts.outbox).reduce((a, b) => a + b, 0)
  console.log(
    `  counts (from the index): inbox ${JSON.stringify(view.counts.inbox)}, outbox ${JSON.stringify(view.counts.outbox)} = ${total.toLocaleString('en')} records`,
  )
  console.log(
    `  one refresh reads: ${view.instances.length} instances, ${view.leases.length} leases, dead-letter pages of ${DEAD_PANELS.map((panel) => view.pages[panel].records.length).join(' / ')}`,
  )
  // A deep page: the cursor where the 200th page of the inbox DLQ starts (walked once, by cursors).
  let cursor = view.pages.inboxDead.next
  for (let page = 1; page < 200 && cursor; page++) {
    cursor = (await takeSnapshot(backend, { ...first, pages: { ...first.pages, inboxDead: cursor } })).pages.inboxDead.next
  }
  const rows: [string, SnapshotQuery][] = [
    ['refresh, default view (first pages)', first],
    ['refresh, filter matching nothing ("zzz")', { ...first, filter: 'zzz' }],
    ['refresh, inbox DLQ at page 200', { ...first, pages: { ...first.pages, inboxDead: cursor ?? undefined } }],
  ]
  for (const [label, query] of rows) {
    const t = await time(() => takeSnapshot(backend, query))
    console.log(
      `  ${label.padEnd(42)} first ${t.first.toFixed(1).padStart(7)} ms   median ${t.median.toFixed(1).padStart(6)} ms   p95 ${t.p95.toFixed(1).padStart(6)} ms   max ${t.max.toFixed(1).padStart(6)} ms`,
    )
  }
}

async function sqlite(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'botmesh-bench-dashboard-'))
  const file = join(dir, 'million.db')
  const backend = new SQLiteDurability({ file })
  await backend.start()
  try {
    console.log(`\nSQLite (${file})`)
    const journal = backend.journal(SCOPE)
    const now = await backend.now()
    const started = performance.now()
    await fillByBatches(journal, now)
    await journal.write('operator.import', instanceWrites(now))
    console.log(
      `  filled ${RECORDS.toLocaleString('en')} records in ${((performance.now() - started) / 1000).toFixed(1)} s; file ${(statSync(file).size / 2 ** 20).toFixed(0)} MiB`,
    )
    await measure(backend)
  } finally {
    await backend.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

async function postgres(): Promise<void> {
  const url = process.env.BOTMESH_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
  const tablePrefix = `bench_${randomBytes(4).toString('hex')}_`
  const backend = new PostgresDurability({ connectionString: url, tablePrefix, statementTimeoutMs: 600_000 })
  await backend.start()
  const t = backend.kv.tables
  try {
    console.log(`\nPostgreSQL (${url.replace(/:[^:@/]*@/, ':***@')}, tables ${tablePrefix}*)`)
    const now = await backend.now()
    const started = performance.now()
    const chunk = 100_000
    for (let from = 0; from < RECORDS; from += chunk) {
      await backend.kv.connection.query(fillStatement(t.durable, from, Math.min(RECORDS, from + chunk) - 1, now))
      if (process.stdout.isTTY)
        process.stdout.write(`\r  filling: ${Math.min(RECORDS, from + chunk).toLocaleString('en')}/${RECORDS.toLocaleString('en')}`)
    }
    if (process.stdout.isTTY) process.stdout.write('\n')
    // The fill bypasses the statements that keep the counter rows: write what they would hold.
    await backend.kv.connection.query(`INSERT INTO ${t.durable} (scope, collection, key, version, value, state, state_time, due)
SELECT scope, '#count:' || collection, state || '/0', 1, count(*)::text, state, 0, NULL FROM ${t.durable}
GROUP BY scope, collection, state`)
    await backend.journal(SCOPE).write('operator.import', instanceWrites(now))
    await backend.kv.connection.query(`ANALYZE ${t.durable}`)
    console.log(
      `  filled ${RECORDS.toLocaleString('en')} records in ${((performance.now() - started) / 1000).toFixed(1)} s (server-side INSERT … SELECT, then the counter rows, then ANALYZE)`,
    )
    await measure(backend)
  } finally {
    await backend.kv.connection.query(`DROP TABLE IF EXISTS ${t.durable} CASCADE`)
    await backend.stop()
    console.log(`  dropped ${tablePrefix}*`)
  }
}

/**
 * Records from..to (the same mix as `writesOf`: even n inbound, odd n sends) built on the server.
 * The JSON has every field of the record shapes; the index columns follow `recordIndex`.
 */
function fillStatement(table: string, from: number, to: number, now: number): string {
  const inboxState = `CASE WHEN (g/2) % 100 < 94 THEN 'done' WHEN (g/2) % 100 < 97 THEN 'dead' WHEN (g/2) % 100 < 98 THEN 'pending' WHEN (g/2) % 100 < 99 THEN 'failed' ELSE 'processing' END`
  const outboxState = `CASE WHEN (g/2) % 100 < 94 THEN 'sent' WHEN (g/2) % 100 < 96 THEN 'dead' WHEN (g/2) % 100 < 97 THEN 'unknown' WHEN (g/2) % 100 < 98 THEN 'pending' WHEN (g/2) % 100 < 99 THEN 'failed' ELSE 'sending' END`
  return `INSERT INTO ${table} (scope, collection, key, version, value, state, state_time, due)
SELECT '${SCOPE}', collection, key, 1, value::text, state, at, CASE
    WHEN state IN ('pending', 'failed') THEN at + 60000
    WHEN state IN ('processing', 'sending') THEN expires
  END
FROM (
  SELECT g, at, state, collection, key, expires,
    CASE WHEN collection = 'inbox' THEN json_build_object(
      'id', key, 'kind', 'message', 'state', state, 'chatId', chat, 'provider', 'mock',
      'event', json_build_object('id', key, 'chatId', chat, 'text', 'text of ' || key),
      'attempts', CASE WHEN state = 'dead' THEN 5 ELSE 1 END,
      'nextAttemptAt', CASE WHEN state IN ('pending', 'failed') THEN at + 60000 END,
      'lease', CASE WHEN state = 'processing' THEN json_build_object('owner', 'bench-1', 'token', g, 'expiresAt', expires, 'acquiredAt', ${now - 1_000}) END,
      'fencingToken', CASE WHEN state = 'processing' THEN g ELSE 0 END,
      'lastError', CASE WHEN state IN ('dead', 'failed') THEN json_build_object('message', 'recipient unreachable', 'code', 'RECIPIENT_UNREACHABLE', 'at', at) END,
      'createdAt', at, 'updatedAt', at)
    ELSE json_build_object(
      'key', key, 'state', state, 'chatId', chat,
      'payload', json_build_object('text', 'Your order #' || g || ' has shipped and will arrive tomorrow.'),
      'fingerprint', NULL, 'keySource', 'derived', 'inboundId', 'wamid.' || (g - 1), 'ordinal', 0, 'previousPart', NULL,
      'attempts', CASE WHEN state = 'dead' THEN 6 ELSE 1 END,
      'nextAttemptAt', CASE WHEN state IN ('pending', 'failed') THEN at + 60000 END,
      'lease', CASE WHEN state = 'sending' THEN json_build_object('owner', 'bench-1', 'token', g, 'expiresAt', expires, 'acquiredAt', ${now - 1_000}) END,
      'fencingToken', CASE WHEN state = 'sending' THEN g ELSE 0 END,
      'providerMessageId', CASE WHEN state = 'sent' THEN 'wamid.out.' || g END,
      'lastError', CASE WHEN state IN ('dead', 'failed') THEN json_build_object('message', 'recipient unreachable', 'code', 'RECIPIENT_UNREACHABLE', 'at', at) END,
      'createdAt', at, 'updatedAt', at)
    END AS value
  FROM (
    SELECT g, (${T0}::bigint + g * 10) AS at,
      CASE WHEN g % 2 = 0 THEN 'inbox' ELSE 'outbox' END AS collection,
      CASE WHEN g % 2 = 0 THEN 'wamid.' || g ELSE 'wamid.' || (g - 1) || ':0' END AS key,
      CASE WHEN g % 2 = 0 THEN ${inboxState} ELSE ${outboxState} END AS state,
      '55119' || lpad((g % 100000)::text, 8, '0') AS chat,
      CASE WHEN (g/2) % 2 = 1 THEN ${now + LEASE_MS}::bigint ELSE ${now - LEASE_MS}::bigint END AS expires
    FROM generate_series(${from}, ${to}) AS g
  ) base
) records`
}

console.log(`dashboard refresh at ${RECORDS.toLocaleString('en')} records (${RUNS} timed runs after a first one)`)
if (ONLY !== 'postgres') await sqlite()
if (ONLY !== 'sqlite') await postgres()
