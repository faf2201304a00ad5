/**
 * The PostgreSQL steps alone (src/backends/postgres/steps/), driven directly, beside single-INSERT
 * transactions on the same server (synchronous_commit on). Each of `c` clients runs messages one
 * after another: admit, journal one reply, then settle with its sent mark, which rides a later call
 * while the client goes on with its next message (as the engine does). Each message is its own
 * chat. Prints msg/s, calls of the steps function per message and, at c8, the ratio to the INSERTs
 * measured right before and after (the load of a shared machine moves within a run).
 * Not an assertion: figures for issue 40.
 * Run: node --import ./test-utils/ts-loader.mjs bench/postgres-steps.ts [messages=4000] [clients=1,8,50]
 */
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { PostgresDurability } from '../src/backends/postgres/index.js'
import { postgresInserts } from './ceilings/postgres.js'
import type { OutboxRecord } from '../src/core/durability/journal/records.js'
import type { StepClaim } from '../src/core/durability/steps/journal-steps.js'
import { leaseOf } from '../src/core/durability/steps/step-rules.js'
import { admitted } from '../test-utils/step-records.js'

const URL = process.env.BOTMESH_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const messages = Number(process.argv[2] ?? 4000)
const levels = (process.argv[3] ?? '1,8,50').split(',').map(Number)

function reply(id: string, chatId: string, claim: StepClaim): OutboxRecord {
  return {
    key: `${id}:1`,
    state: 'sending',
    chatId,
    payload: 'a reply of ordinary length, '.repeat(4),
    fingerprint: null,
    keySource: 'derived',
    inboundId: id,
    ordinal: 1,
    previousPart: null,
    nextPart: null,
    attempts: 0,
    nextAttemptAt: null,
    lease: leaseOf(claim, 1),
    fencingToken: 1,
    providerMessageId: null,
    lastError: null,
    createdAt: claim.now,
    updatedAt: claim.now,
  }
}

/** `messages` messages through the steps at `clients`: msg/s and calls of the steps function a message. */
async function stepsAt(clients: number): Promise<{ perSecond: number; callsPerMessage: number }> {
  const tablePrefix = `bmb_${randomBytes(4).toString('hex')}_`
  const pool = new pg.Pool({ connectionString: URL, max: 10 })
  pool.on('error', () => {})
  let calls = 0
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown
  ;(pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args) => {
    calls++
    return query(...args)
  }
  const durability = new PostgresDurability({ pool, tablePrefix })
  await durability.start()
  const steps = durability.steps('bench')
  const step = <T>(call: (done: (outcome: T) => void) => void) => new Promise<T>((resolve) => call(resolve))
  const settles: Promise<unknown>[] = []
  let next = 0
  const run = async (client: number) => {
    for (let n = next++; n < messages; n = next++) {
      const claim: StepClaim = { owner: 'bench', incarnation: 'run-1', leaseMs: 60_000, now: Date.now() }
      const record = admitted(`c${client}-${n}`, n, claim)
      const admittedAs = await step<{ type: string }>((done) => steps.admit(record, claim, done))
      if (admittedAs.type !== 'run') throw new Error(`admit: ${JSON.stringify(admittedAs)}`)
      const send = reply(record.id, record.chatId, claim)
      const journaled = await step<{ type: string }>((done) => steps.journal({ id: record.id, token: 1 }, [send], done))
      if (journaled.type !== 'journaled') throw new Error(`journal: ${JSON.stringify(journaled)}`)
      const settle = {
        inbound: { id: record.id, token: 1, end: { state: 'done' } as const },
        marks: [{ key: send.key, messageId: `p${n}` }],
      }
      settles.push(step((done) => steps.settle(settle, claim, done)))
    }
  }
  calls = 0
  const started = process.hrtime.bigint()
  await Promise.all(Array.from({ length: clients }, (_, client) => run(client)))
  await Promise.all(settles)
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  const callsPerMessage = calls / messages
  await durability.stop()
  await pool.query(`DROP TABLE "${tablePrefix}durable"`)
  const { rows } = await pool.query<{ sql: string }>(
    `SELECT format('DROP FUNCTION %s(%s)', p.oid::regproc, pg_get_function_identity_arguments(p.oid)) AS sql FROM pg_proc p WHERE p.proname LIKE $1`,
    [`${tablePrefix}%`],
  )
  for (const { sql } of rows) await pool.query(sql)
  await pool.end()
  return { perSecond: messages / seconds, callsPerMessage }
}

/** Single-INSERT transactions at c8 (the load on this machine moves: measured right before and after the steps at c8). */
const insertsAtC8 = async () =>
  (await postgresInserts(URL, { operations: messages, clients: 8, connectTimeoutMs: 5_000 }, 'x'.repeat(500))).perSecond
for (const clients of levels) {
  const before = clients === 8 ? await insertsAtC8() : 0
  const { perSecond, callsPerMessage } = await stepsAt(clients)
  let ratio = ''
  if (clients === 8) {
    const inserts = (before + (await insertsAtC8())) / 2
    ratio = `; single-INSERT transactions c8: ${inserts.toFixed(0)} txn/s (mean of before and after), steps ÷ that: ${(perSecond / inserts).toFixed(2)}`
  }
  console.log(`steps c${clients}: ${perSecond.toFixed(0)} msg/s, ${callsPerMessage.toFixed(2)} calls a message${ratio}`)
}
