/**
 * `npm run soak` (main.ts): the soak. A bot on a throwaway instance answers a steady rate of messages
 * (steady-rate.ts) with a short retention, so the journal fills up to what the retention keeps and
 * purging must keep pace from then on. Every interval it samples what an operator watches over a
 * long run: messages answered per second, p50/p99 latency, the journal's records (the index counts
 * of the inbox and the outbox), the purge backlog (expired records not yet purged), what retention
 * deleted, and the process's RSS. At the end, the verdict on flatness (flatness.ts).
 */
import { Bot } from '../../src/core/bot/bot.js'
import type { DurabilityBackend, Journal } from '../../src/core/durability/journal/backend.js'
import { purgeBacklog } from '../../src/core/durability/retention/retention.js'
import { TEXT } from '../../src/core/bot/matchers.js'
import { resolveNamespace, scopeIdOf } from '../../src/core/bot/namespace.js'
import type { ThrowawayFactory } from '../../src/operator/gateway/open.js'
import { BenchProvider } from '../../src/cli/services/bench-provider.js'
import { round } from '../../src/cli/services/closed-loop.js'
import { CountingBackend } from '../../src/cli/services/counting-backend.js'
import { flatnessOf, type Flatness } from './flatness.js'
import { LatencySample } from './latency-sample.js'
import { SteadyRate } from './steady-rate.js'

/** The soak's bounds and defaults. */
export const SOAK_LIMITS = {
  /** Messages sent and not yet answered at most; past it the driver falls behind (and latency shows it). @default 10000 */
  inFlightMax: 10_000,
  /** How long the end of a run waits for the answers still in flight. @default 30000 */
  drainTimeoutMs: 30_000,
} as const

/** The soak's bot: its journal is read under this scope while it runs. */
const SOAK_BOT_ID = 'soak'

/** What to run. */
export interface SoakOptions {
  durationMs: number
  /** Messages per second. */
  rate: number
  /** The bot's retention: done and sent records older than this are purged. */
  retentionMs: number
  /** How often a sample is taken (the last one at the end of the run). */
  intervalMs: number
  /** Chats the messages go to in turn: a chat's messages run one after another, chats side by side. */
  chats: number
  /** Aborting ends the run early; the summary covers what ran. */
  signal?: AbortSignal
}

/** One interval's figures. */
export interface SoakSample {
  type: 'interval'
  /** Seconds since the start, when the sample was taken. */
  atSeconds: number
  /** Messages answered per second over the interval. */
  messagesPerSecond: number
  p50Ms: number
  p99Ms: number
  /** Records in the journal: inbox plus outbox, every state. */
  journalRecords: number
  inboxRecords: number
  outboxRecords: number
  /** Done and sent records past the retention, not yet purged (`capped`: at least this many). */
  purgeBacklog: number
  purgeBacklogCapped: boolean
  /** Records retention deleted over the interval. */
  recordsPurged: number
  /** The process's resident set size, bytes. */
  rssBytes: number
  /** Messages sent and not yet answered when the sample was taken. */
  inFlight: number
}

/** The whole run's figures and the verdict. */
export interface SoakSummary {
  type: 'summary'
  backend: string
  instances: string
  rate: number
  chats: number
  durationMs: number
  retentionMs: number
  intervalMs: number
  /** How long the messages were sent for (shorter than durationMs when stopped early). */
  seconds: number
  messagesSent: number
  messagesAnswered: number
  /** Messages the bot refused or lost (their send threw), with the first error's message. */
  messagesFailed: number
  firstError: string | null
  /** Sent but still unanswered once the run had waited drainTimeoutMs for them. */
  messagesUnanswered: number
  /** Replies that reached their chat after the reply to a later message of it (0: every chat kept its order). */
  messagesOutOfOrder: number
  /** Answered per second over the run. */
  messagesPerSecond: number
  p50Ms: number
  p99Ms: number
  recordsPurged: number
  stoppedEarly: boolean
  flatness: Flatness
}

/** Runs the soak on a throwaway instance, handing each interval's sample to `onSample` as it is taken. */
export async function runSoak(
  label: string,
  factory: ThrowawayFactory,
  options: SoakOptions,
  onSample: (sample: SoakSample) => void,
): Promise<SoakSummary> {
  const inner = await factory.create()
  const backend = new CountingBackend(inner)
  const provider = new BenchProvider()
  const bot = new Bot({
    provider,
    botId: SOAK_BOT_ID,
    logger: { warn: () => {}, error: () => {} },
    durability: { backend: backend as DurabilityBackend, instanceId: 'soak-1', retention: options.retentionMs },
  })
  bot.on('error', () => {})
  bot.when(TEXT, (ctx) => ctx.reply(`re:${ctx.message.text}`))
  try {
    await bot.start()
    const journal = inner.journal(scopeIdOf(resolveNamespace({ botId: SOAK_BOT_ID })))
    return await soak(label, factory.description, { options, backend, journal, provider }, onSample)
  } finally {
    await bot.stop().catch(() => {})
    await factory.cleanup(inner)
  }
}

/** What a running soak reads and drives. */
interface SoakParts {
  options: SoakOptions
  backend: CountingBackend
  journal: Journal
  provider: BenchProvider
}

async function soak(label: string, instances: string, parts: SoakParts, onSample: (sample: SoakSample) => void): Promise<SoakSummary> {
  const { options, backend, provider } = parts
  const startedAt = performance.now()
  const latencies = { run: new LatencySample(), interval: new LatencySample() }
  // The driver stops on the operator's abort, and when sampling fails (the run then ends with the error).
  const stop = new AbortController()
  const abort = () => stop.abort()
  options.signal?.addEventListener('abort', abort, { once: true })
  const driver = new SteadyRate(
    {
      rate: options.rate,
      count: Math.floor((options.durationMs / 1_000) * options.rate),
      inFlightMax: SOAK_LIMITS.inFlightMax,
      startedAt,
      signal: stop.signal,
    },
    async (n) => {
      const id = `s${n}`
      const reply = provider.replyTo(id)
      await provider.receive({ id, chatId: `soak-chat-${n % options.chats}`, text: id })
      await reply
    },
    (latencyMs) => {
      latencies.run.add(latencyMs)
      latencies.interval.add(latencyMs)
    },
  )
  const driving = driver.run()
  try {
    const samples = await sampleEachInterval(parts, { driver, latencies, startedAt, signal: stop.signal }, onSample)
    await driving
    const seconds = Math.min(performance.now() - startedAt, options.durationMs) / 1_000
    const answeredInTime = driver.answered
    await driver.drain(SOAK_LIMITS.drainTimeoutMs)
    const [p50Ms, p99Ms] = latencies.run.percentiles([0.5, 0.99])
    return {
      type: 'summary',
      backend: label,
      instances,
      ...pick(options, ['rate', 'chats', 'durationMs', 'retentionMs', 'intervalMs']),
      seconds: round(seconds, 3),
      messagesSent: driver.sent,
      messagesAnswered: driver.answered,
      messagesFailed: driver.failed,
      firstError: driver.firstError ?? null,
      messagesUnanswered: driver.inFlight,
      messagesOutOfOrder: provider.outOfOrder,
      messagesPerSecond: seconds > 0 ? round(answeredInTime / seconds, 1) : 0,
      p50Ms: round(p50Ms!, 2),
      p99Ms: round(p99Ms!, 2),
      recordsPurged: backend.recordsPurged,
      stoppedEarly: options.signal?.aborted === true,
      flatness: flatnessOf(samples, samples.at(-1)?.atSeconds ?? 0),
    }
  } finally {
    stop.abort()
    options.signal?.removeEventListener('abort', abort)
    await driving
  }
}

/** What the sampling reads of the running driver. */
interface Driving {
  driver: SteadyRate
  latencies: { run: LatencySample; interval: LatencySample }
  startedAt: number
  signal: AbortSignal
}

/** A sample at the end of each interval, the last at the end of the run (or none past an abort). */
async function sampleEachInterval(parts: SoakParts, driving: Driving, onSample: (sample: SoakSample) => void): Promise<SoakSample[]> {
  const { options, backend } = parts
  const { driver, latencies, startedAt, signal } = driving
  const samples: SoakSample[] = []
  let previous = { atMs: 0, answered: 0, purged: 0 }
  for (let i = 1; !signal.aborted; i++) {
    const dueMs = Math.min(i * options.intervalMs, options.durationMs)
    await sleepUntil(startedAt + dueMs, signal)
    if (signal.aborted) break
    const atMs = performance.now() - startedAt
    const interval = latencies.interval
    latencies.interval = new LatencySample()
    const sample = await takeSample(parts, {
      atMs,
      answered: driver.answered - previous.answered,
      seconds: (atMs - previous.atMs) / 1_000,
      latencies: interval,
      purged: backend.recordsPurged - previous.purged,
      inFlight: driver.inFlight,
    })
    previous = { atMs, answered: driver.answered, purged: backend.recordsPurged }
    samples.push(sample)
    onSample(sample)
    if (dueMs >= options.durationMs) break
  }
  return samples
}

const pick = <T, K extends keyof T>(from: T, keys: readonly K[]) => Object.fromEntries(keys.map((key) => [key, from[key]])) as Pick<T, K>

/** What the driver and the wrapper counted over one interval. */
interface IntervalCounts {
  atMs: number
  answered: number
  seconds: number
  latencies: LatencySample
  purged: number
  inFlight: number
}

/** The interval's figures, and the journal's and the process's state now. */
async function takeSample(parts: SoakParts, counts: IntervalCounts): Promise<SoakSample> {
  const { journal, backend, options } = parts
  const [inbox, outbox, now] = await Promise.all([journal.count('inbox'), journal.count('outbox'), backend.inner.now()])
  const backlog = await purgeBacklog(journal, now - options.retentionMs)
  const [p50Ms, p99Ms] = counts.latencies.percentiles([0.5, 0.99])
  const inboxRecords = total(inbox)
  const outboxRecords = total(outbox)
  return {
    type: 'interval',
    atSeconds: round(counts.atMs / 1_000, 3),
    messagesPerSecond: counts.seconds > 0 ? round(counts.answered / counts.seconds, 1) : 0,
    p50Ms: round(p50Ms!, 2),
    p99Ms: round(p99Ms!, 2),
    journalRecords: inboxRecords + outboxRecords,
    inboxRecords,
    outboxRecords,
    purgeBacklog: backlog.total,
    purgeBacklogCapped: backlog.capped,
    recordsPurged: counts.purged,
    rssBytes: process.memoryUsage.rss(),
    inFlight: counts.inFlight,
  }
}

const total = (counts: Record<string, number>) => Object.values(counts).reduce((sum, n) => sum + n, 0)

/** Sleeps until `performance.now()` reaches `at`, or the run is aborted. */
function sleepUntil(at: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, Math.max(0, at - performance.now()))
    signal?.addEventListener('abort', done, { once: true })
  })
}
