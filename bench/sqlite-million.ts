/**
 * SQLiteDurability on a journal of a million outbox records: how long the dashboard's and the
 * CLI's reads take (count, first pages, the due index, gets) and what one write costs at that size
 * (DESIGN §9: `stats` and `dlq list`'s first page under 100 ms). Prints figures; asserts nothing.
 *
 *   node --import ./test-utils/ts-loader.mjs bench/sqlite-million.ts [--records 1000000] [--file path] [--keep]
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { SQLiteDurability } from '../src/backends/sqlite/index.js'
import { DURABLE_SQL } from '../src/backends/sqlite/statements.js'
import type { OutboxRecord, OutboxState } from '../src/core/durability/journal/records.js'
import { outboxRecord } from '../src/testing/conformance/fixtures.js'

const args = process.argv.slice(2)
const option = (name: string) => {
  const at = args.indexOf(`--${name}`)
  return at === -1 ? undefined : args[at + 1]
}
const records = Number(option('records') ?? 1_000_000)
const dir = option('file') ? undefined : mkdtempSync(join(tmpdir(), 'botmesh-bench-sqlite-'))
const file = option('file') ?? join(dir!, 'million.db')
const keep = args.includes('--keep')
const BATCH = 10_000
const SCOPE = 'bench-bot'
const BASE_TIME = 1_700_000_000_000

/** 96% sent, 2% dead, 1% pending (due), 1% failed (due later): a week of retention on a busy bot. */
function stateOf(n: number): OutboxState {
  const bucket = n % 100
  return bucket < 96 ? 'sent' : bucket < 98 ? 'dead' : bucket < 99 ? 'pending' : 'failed'
}

function recordOf(n: number): OutboxRecord {
  const state = stateOf(n)
  const at = BASE_TIME + n * 10
  return outboxRecord(`inb-${n.toString(36)}:0`, {
    state,
    chatId: `55119${String(n % 100_000).padStart(8, '0')}`,
    payload: { text: `Your order #${n} has shipped and will arrive tomorrow.` },
    fingerprint: 'f'.repeat(64),
    keySource: 'derived',
    inboundId: `inb-${n.toString(36)}`,
    ordinal: 0,
    attempts: 1,
    nextAttemptAt: state === 'pending' ? at : state === 'failed' ? at + 3_600_000 : null,
    providerMessageId: state === 'sent' ? `wamid.${n}` : null,
    lastError: state === 'dead' ? { message: 'recipient unreachable', code: 'RECIPIENT_UNREACHABLE', at } : null,
    createdAt: at,
    updatedAt: at,
  })
}

/** Runs `fn` `runs` times; the median and the slowest, in ms. */
async function time(runs: number, fn: (run: number) => Promise<unknown>): Promise<{ median: number; max: number }> {
  const samples: number[] = []
  for (let run = 0; run < runs; run++) {
    const started = performance.now()
    await fn(run)
    samples.push(performance.now() - started)
  }
  samples.sort((a, b) => a - b)
  return { median: samples[Math.floor(runs / 2)]!, max: samples.at(-1)! }
}

const durability = new SQLiteDurability({ file })
await durability.start()
const journal = durability.journal(SCOPE)
try {
  const fillStarted = performance.now()
  for (let from = 0; from < records; from += BATCH) {
    const writes = Array.from({ length: Math.min(BATCH, records - from) }, (_, i) => ({
      kind: 'outbox' as const,
      record: recordOf(from + i),
      expectVersion: 0,
    }))
    await journal.write('outbox.journal', writes)
    if (process.stdout.isTTY) process.stdout.write(`\rfilling: ${from + writes.length}/${records}`)
  }
  const fillMs = performance.now() - fillStarted
  if (process.stdout.isTTY) process.stdout.write('\n')
  await durability.compact()
  console.log(
    `filled ${records.toLocaleString('en')} outbox records in ${(fillMs / 1000).toFixed(1)} s (${Math.round(records / (fillMs / 1000)).toLocaleString('en')} records/s, batches of ${BATCH} in one transaction each); file ${(statSync(file).size / 2 ** 20).toFixed(0)} MiB`,
  )

  const sentAt = (n: number) => ({ stateTime: BASE_TIME + n * 10, key: `inb-${n.toString(36)}:0` })
  const randomKey = () => `inb-${Math.floor(Math.random() * records).toString(36)}:0`
  const figures: [string, { median: number; max: number }][] = [
    ['count (stats)', await time(20, () => journal.count('outbox'))],
    ['list dead, first page of 50 (dlq list)', await time(20, () => journal.list('outbox', { state: 'dead', limit: 50 }))],
    ['list sent, first page of 50', await time(20, () => journal.list('outbox', { state: 'sent', limit: 50 }))],
    [
      'list sent, page of 50 after a mid cursor',
      await time(20, () => journal.list('outbox', { state: 'sent', limit: 50, after: sentAt(Math.floor(records / 2)) })),
    ],
    ['due now, 100 (sweeper)', await time(20, () => journal.due('outbox', BASE_TIME + records * 10, 100))],
    ['get 1 random key', await time(200, () => journal.read('outbox', [randomKey()]))],
    ['get 100 random keys', await time(20, () => journal.read('outbox', Array.from({ length: 100 }, randomKey)))],
    ['scopes', await time(20, () => durability.scopes())],
    [
      'write 1 CAS update (one transaction + fsync)',
      await time(50, async (run) => {
        const n = run * 100 + 3
        const [current] = await journal.read('outbox', [recordOf(n).key])
        await journal.write('outbox.markSent', [
          { kind: 'outbox', record: { ...current!.record, attempts: 2 }, expectVersion: current!.version },
        ])
      }),
    ],
    ['purge 1000 oldest sent', await time(5, () => journal.purge('outbox', 'sent', BASE_TIME + records * 10, 1_000))],
  ]
  const width = Math.max(...figures.map(([name]) => name.length))
  console.log(`\n${'operation'.padEnd(width)}  median ms  max ms`)
  for (const [name, { median, max }] of figures)
    console.log(`${name.padEnd(width)}  ${median.toFixed(3).padStart(9)}  ${max.toFixed(2).padStart(6)}`)

  // Group commit: the same single-record writes, one caller at a time and 64 at once.
  const writes = 640
  for (const callers of [1, 64]) {
    let next = 0
    const started = performance.now()
    await Promise.all(
      Array.from({ length: callers }, async () => {
        for (let n = next++; n < writes; n = next++) {
          const record = outboxRecord(`group-${callers}-${n}`, { state: 'pending', nextAttemptAt: BASE_TIME, updatedAt: BASE_TIME })
          await journal.write('outbox.journal', [{ kind: 'outbox', record, expectVersion: 0 }])
        }
      }),
    )
    const seconds = (performance.now() - started) / 1000
    console.log(
      `${writes} single-record writes, ${String(callers).padStart(2)} concurrent caller(s): ${Math.round(writes / seconds).toLocaleString('en')} writes/s`,
    )
  }

  const raw = new Database(file, { readonly: true })
  console.log('\nquery plans:')
  for (const [name, sql] of Object.entries(DURABLE_SQL)) {
    const plan = raw.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...new Array(sql.split('?').length - 1).fill(1)) as { detail: string }[]
    console.log(`  ${name.padEnd(10)} ${plan.map((row) => row.detail).join(' | ') || '(insert)'}`)
  }
  raw.close()
} finally {
  await durability.stop()
  if (!keep && dir) rmSync(dir, { recursive: true, force: true })
}
