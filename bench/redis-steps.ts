/**
 * The Redis steps driven directly (src/backends/redis/steps.ts), beside BullMQ's no-op worker, on a
 * private redis-server this script starts (so no other client's work is in its figures). Each of
 * `c` slots runs messages one after another, each of a chat of its own: admit, journal one reply,
 * settle; a slot goes on to its next message once the settle is called (the settle is off the
 * critical path, as the engine runs it), and a message counts once its settle landed. Per concurrency it prints
 * msg/s, script calls and Redis commands per message (INFO commandstats: the commands a script
 * runs count there too) and Redis CPU µs per message (INFO CPU, used_cpu_sys + used_cpu_user); for
 * BullMQ, jobs/s and Redis CPU µs a job over its whole run (the jobs added, then drained).
 * Run: node --import ./test-utils/ts-loader.mjs bench/redis-steps.ts [messages=5000] [concurrencies=1,8,50] [--no-bullmq] [--commands]
 */
import { Redis } from 'ioredis'
import { RedisDurability } from '../src/backends/redis/index.js'
import type { InboxRecord, OutboxRecord } from '../src/core/durability/journal/records.js'
import type { JournalSteps, StepClaim } from '../src/core/durability/steps/journal-steps.js'
import { leaseOf } from '../src/core/durability/steps/step-rules.js'
import { randomPrefix, startRedisServer } from '../test-utils/redis.js'

const args = process.argv.slice(2).filter((arg) => !arg.startsWith('--'))
const MESSAGES = Number(args[0] ?? 5_000)
const CONCURRENCIES = (args[1] ?? '1,8,50').split(',').map(Number)
const WITH_BULLMQ = !process.argv.includes('--no-bullmq')
/** Messages each slot runs before the figures start. */
const WARMUP_PER_SLOT = 20
const LEASE_MS = 30_000
const PEER_TIMEOUT_MS = 300_000

/** BullMQ's no-op worker (bullmq-peer.js, plain JavaScript, as `npm run bench` runs it). */
type MeasurePeer = (options: { url: string; jobs: number; concurrency: number; timeoutMs: number }) => Promise<{ jobsPerSecond: number }>
const PEER_MODULE: string = './bullmq-peer.js'
/** Warm-up jobs per worker slot in a peer's run (peer-drain.js WARMUP_PER_SLOT). */
const PEER_WARMUP_PER_SLOT = 3
const { measureBullmq } = (await import(PEER_MODULE)) as { measureBullmq: MeasurePeer }

const claim = (): StepClaim => ({ owner: 'bench', incarnation: 'run-1', leaseMs: LEASE_MS, now: Date.now() })

function inbound(chatId: string, n: number, at: StepClaim): InboxRecord {
  return {
    id: `mock:${chatId}:${n}`,
    kind: 'message',
    state: 'processing',
    chatId,
    provider: 'mock',
    event: { id: String(n), chatId, text: 'a message of ordinary length, '.repeat(4) },
    attempts: 1,
    nextAttemptAt: null,
    lease: leaseOf(at, 1),
    fencingToken: 1,
    lastError: null,
    createdAt: at.now,
    seq: at.now * 1000 + n,
    updatedAt: at.now,
  }
}

function reply(message: InboxRecord, at: StepClaim): OutboxRecord {
  return {
    key: `${message.id}:0`,
    state: 'sending',
    chatId: message.chatId,
    payload: { text: 'a reply of ordinary length, '.repeat(4) },
    fingerprint: null,
    keySource: 'derived',
    inboundId: message.id,
    ordinal: 0,
    previousPart: null,
    nextPart: null,
    attempts: 0,
    nextAttemptAt: null,
    lease: leaseOf(at, 1),
    fencingToken: 1,
    providerMessageId: null,
    lastError: null,
    createdAt: at.now,
    updatedAt: at.now,
  }
}

/** Runs `count` messages over `slots` chats; resolves when every settle landed. */
function drive(steps: JournalSteps, slots: number, count: number, round: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let started = 0
    let settled = 0
    const fail = (what: string, outcome: { type: string; error?: unknown }) =>
      reject(new Error(`${what}: ${outcome.type} ${String(outcome.error ?? '')}`))
    const next = () => {
      if (started >= count) return
      const n = started++
      const at = claim()
      const message = inbound(`${round}-chat-${n}`, n, at)
      steps.admit(message, at, (admitted) => {
        if (admitted.type !== 'run') return fail('admit', admitted)
        const sent = reply(message, at)
        steps.journal({ id: message.id, token: 1 }, [sent], (journaled) => {
          if (journaled.type !== 'journaled') return fail('journal', journaled)
          const end = { id: message.id, token: 1, end: { state: 'done' as const } }
          steps.settle({ inbound: end, marks: [{ key: sent.key, messageId: `p${n}` }] }, claim(), (outcome) => {
            if (outcome.type !== 'settled') return fail('settle', outcome)
            if (++settled === count) resolve()
          })
          next()
        })
      })
    }
    for (let slot = 0; slot < slots; slot++) next()
  })
}

/** The server's counters: script calls, commands (scripts' own included), CPU seconds. */
async function counters(client: Redis): Promise<{ calls: number; commands: number; cpu: number; usec: Map<string, number> }> {
  const stats = await client.info('commandstats')
  let calls = 0
  let commands = 0
  const usec = new Map<string, number>()
  for (const [, name, n, spent] of stats.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) {
    if (name === 'info') continue
    usec.set(name!, Number(spent))
    if (name === 'evalsha' || name === 'eval') calls += Number(n)
    else commands += Number(n)
  }
  const cpu = await client.info('cpu')
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(cpu)![1])
  return { calls, commands, cpu: field('used_cpu_sys') + field('used_cpu_user'), usec }
}

async function measure(url: string, slots: number) {
  const client = new Redis(url)
  const durability = new RedisDurability({ client, prefix: randomPrefix() })
  const steps = durability.steps('bench')
  await drive(steps, slots, WARMUP_PER_SLOT * slots, `warm-${slots}`)
  const before = await counters(client)
  const start = performance.now()
  await drive(steps, slots, MESSAGES, `run-${slots}`)
  const seconds = (performance.now() - start) / 1_000
  const after = await counters(client)
  await client.flushall()
  await client.quit()
  return {
    concurrency: slots,
    msgPerSecond: Math.round(MESSAGES / seconds),
    callsPerMessage: round((after.calls - before.calls) / MESSAGES),
    commandsPerMessage: round((after.commands - before.commands) / MESSAGES),
    redisCpuUsPerMessage: round(((after.cpu - before.cpu) * 1e6) / MESSAGES),
    /** Commandstats' µs a message by command (a script's call includes the commands it runs). */
    usecPerMessage: Object.fromEntries(
      [...after.usec]
        .map(([name, spent]) => [name, round((spent - (before.usec.get(name) ?? 0)) / MESSAGES)])
        .filter(([, spent]) => spent !== 0),
    ),
  }
}

function round(value: number): number {
  return Math.round(value * 100) / 100
}

const server = await startRedisServer()
try {
  const rows = []
  for (const concurrency of CONCURRENCIES) {
    const steps = await measure(server.url, concurrency)
    const { usecPerMessage, ...row }: Record<string, unknown> = steps
    if (process.argv.includes('--commands')) console.log(`c${concurrency} µs a message by command:`, usecPerMessage)
    if (WITH_BULLMQ) {
      const client = new Redis(server.url)
      const before = await counters(client)
      const peer = await measureBullmq({ url: server.url, jobs: MESSAGES, concurrency, timeoutMs: PEER_TIMEOUT_MS })
      const after = await counters(client)
      await client.quit()
      row.bullmqJobsPerSecond = peer.jobsPerSecond
      // Its whole run: the jobs added and drained, warm-up included (a job's add is its admission).
      row.bullmqRedisCpuUsPerJob = round(((after.cpu - before.cpu) * 1e6) / (MESSAGES + concurrency * PEER_WARMUP_PER_SLOT))
      row.ratio = round(steps.msgPerSecond / peer.jobsPerSecond)
    }
    rows.push(row)
    console.log(JSON.stringify(row))
  }
  console.table(rows)
} finally {
  await server.stop()
}
