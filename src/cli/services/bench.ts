/**
 * `bench`: messages per second through the full journal path. A message is one inbound journaled,
 * a handler, one reply sent through the outbox (docs/performance.md). `concurrency` clients each send a
 * message to their own chat and wait for its reply before sending the next (a closed loop), so
 * latency is the time from delivery to the reply reaching the channel. The same run without
 * durability gives the baseline, and the ratio of the two is the figure that holds across
 * machines. Round trips are the backend calls a wrapper counted, per message, and writes the
 * records those calls wrote (each a compare-and-set). The store's raw ceiling and the queues a user
 * would pick instead are measured beside it by the repository's `npm run bench` (bench/), not here. Each run also says
 * what a message costs this process (work-meter.ts: CPU, bytes allocated, GC pause) and how many
 * promises it creates (promise-count.ts, in a short pass after the timed run: the hook that counts
 * them would slow the run it counts).
 */
import { randomBytes } from 'node:crypto'
import { Bot } from '../../core/bot/bot.js'
import type { EncryptionOptions } from '../../core/durability/config.js'
import type { DurabilityBackend } from '../../core/durability/journal/backend.js'
import { TEXT } from '../../core/bot/matchers.js'
import type { ThrowawayFactory } from '../../operator/gateway/open.js'
import { closedLoop, percentile, round } from './closed-loop.js'
import { BenchProvider } from './bench-provider.js'
import { CountingBackend, type CallCounts, type CallTally } from './counting-backend.js'
import { countPromises } from './promise-count.js'
import { startWorkMeter, type WorkCost } from './work-meter.js'

/** How much to send. */
export interface BenchOptions {
  messages: number
  concurrency: number
  /** Also run the durable path with content sealed (`durability.encryption`, a key made for the run), on a fresh instance. */
  sealed?: boolean
  onProgress?(done: number, total: number, phase: 'durable' | 'sealed' | 'baseline'): void
}

/** One run's figures. */
export interface RunFigures {
  seconds: number
  messagesPerSecond: number
  msPerMessage: number
  p50Ms: number
  p99Ms: number
  /** CPU time of this process (user + system, every thread) per message, microseconds. */
  cpuMicrosPerMessage: number
  /** Bytes allocated on the JavaScript heap per message (heap growth plus what collections freed). */
  allocatedBytesPerMessage: number
  /** Garbage-collection pause per message, microseconds. */
  gcMicrosPerMessage: number
  /** Promises created per message, counted in a pass of `promisesCountedOver` messages after the timed run. */
  promisesPerMessage: number
}

/** What `bench` reports. */
export interface BenchReport {
  backend: string
  instances: string
  messages: number
  concurrency: number
  durable: RunFigures
  baseline: RunFigures
  /** Time per message with durability over time per message without it. */
  slowdown: number
  /** CPU per message with durability over CPU per message without it. */
  cpuRatio: number
  /**
   * The durable run again with content sealed (AES-256-GCM), and what sealing costs: its time and
   * CPU per message over the unsealed durable run's. Null without `sealed`.
   */
  sealed: { figures: RunFigures; slowdown: number; cpuRatio: number } | null
  /** Messages of the pass that counts promises (after the timed run, not timed). */
  promisesCountedOver: number
  /** Backend calls per message on the message path (the background loops' calls are in backgroundCallsPerMessage). */
  roundTripsPerMessage: number
  /** Calls of the sweeper and the instance heartbeat during the run, per message: not a message's cost. */
  backgroundCallsPerMessage: number
  callsPerMessage: Record<keyof CallCounts, number>
  /** Records written (compare-and-sets) per message, however many calls carried them. */
  writesPerMessage: number
  /** The engine the durable run's bot ran on (engine-choice.ts): `steps` when it made steps, else `message`. */
  engine: 'steps' | 'message'
}

/** Messages each client sends before measuring starts (connections, prepared statements, JIT). */
const WARMUP_PER_CLIENT = 3
/** Messages of the pass that counts promises (fewer when the run sends fewer): enough for a steady mean. */
const PROMISE_PASS_MESSAGES = 500

/** Runs the benchmark on a throwaway instance, then the baseline. */
export async function runBench(label: string, factory: ThrowawayFactory, options: BenchOptions): Promise<BenchReport> {
  const inner = await factory.create()
  const counting = new CountingBackend(inner)
  let durable: Measured
  try {
    durable = await measure(counting, options, (done) => options.onProgress?.(done, options.messages, 'durable'))
  } finally {
    await factory.cleanup(inner)
  }
  const sealed = options.sealed ? await sealedRun(factory, options, durable.figures) : null
  const { figures: baseline } = await measure(undefined, options, (done) => options.onProgress?.(done, options.messages, 'baseline'))
  const perMessage = (n: number) => round(n / options.messages, 2)
  const tally = durable.tally!
  return {
    backend: label,
    instances: factory.description,
    messages: options.messages,
    concurrency: options.concurrency,
    durable: durable.figures,
    baseline,
    slowdown: round(durable.figures.msPerMessage / baseline.msPerMessage, 2),
    cpuRatio: round(durable.figures.cpuMicrosPerMessage / baseline.cpuMicrosPerMessage, 2),
    sealed,
    promisesCountedOver: promisePassOf(options),
    roundTripsPerMessage: perMessage(tally.total - tally.background),
    backgroundCallsPerMessage: perMessage(tally.background),
    callsPerMessage: Object.fromEntries(Object.entries(tally.calls).map(([verb, n]) => [verb, perMessage(n)])) as Record<
      keyof CallCounts,
      number
    >,
    writesPerMessage: perMessage(tally.recordsWritten),
    engine: tally.calls.step > 0 ? 'steps' : 'message',
  }
}

/** The durable run on a fresh instance with content sealed under a key made for it, beside the unsealed one. */
async function sealedRun(factory: ThrowawayFactory, options: BenchOptions, unsealed: RunFigures): Promise<BenchReport['sealed']> {
  const inner = await factory.create()
  const encryption: EncryptionOptions = { keys: { bench: randomBytes(32) }, current: 'bench' }
  try {
    const onProgress = (done: number) => options.onProgress?.(done, options.messages, 'sealed')
    const { figures } = await measure(new CountingBackend(inner), options, onProgress, encryption)
    return {
      figures,
      slowdown: round(figures.msPerMessage / unsealed.msPerMessage, 2),
      cpuRatio: round(figures.cpuMicrosPerMessage / unsealed.cpuMicrosPerMessage, 2),
    }
  } finally {
    await factory.cleanup(inner)
  }
}

const promisePassOf = (options: BenchOptions) => Math.min(options.messages, PROMISE_PASS_MESSAGES)

/** A run's figures, and the backend calls of its timed part when it had a backend. */
interface Measured {
  figures: RunFigures
  tally?: CallTally
}

/** Delivers one message as client `client` and resolves when its reply reached the channel. */
type Deliver = (id: string, client: number) => Promise<void>

/**
 * One closed-loop run; with a backend the bot journals, without one it runs in memory. The warm-up,
 * then the timed run (its cost metered), then the pass that counts promises.
 */
async function measure(
  backend: CountingBackend | undefined,
  options: BenchOptions,
  onProgress: (done: number) => void,
  encryption?: EncryptionOptions,
): Promise<Measured> {
  const provider = new BenchProvider()
  const bot = new Bot({
    provider,
    botId: 'bench',
    logger: { warn: () => {}, error: () => {} },
    ...(backend && { durability: { backend: backend as DurabilityBackend, instanceId: 'bench-1', ...(encryption && { encryption }) } }),
  })
  bot.on('error', () => {})
  bot.when(TEXT, (ctx) => ctx.reply(`re:${ctx.message.text}`))
  await bot.start()
  try {
    const deliver: Deliver = async (id, client) => {
      const reply = provider.replyTo(id)
      await provider.receive({ id, chatId: `bench-chat-${client}`, text: id })
      await reply
    }
    await closedLoop(options.concurrency, WARMUP_PER_CLIENT * options.concurrency, (n, client) => deliver(`warmup-${n}`, client))
    // A reply goes out before its message is completed: the warm-up's completions land before counting starts,
    // and the timed run's before its calls are read and promises counted.
    await bot.idle()
    backend?.reset()
    const timed = await timedRun(options, deliver, onProgress)
    await bot.idle()
    const tally = backend?.tally()
    const pass = promisePassOf(options)
    const promises = await countPromises(async () => {
      await closedLoop(options.concurrency, pass, (n, client) => deliver(`promises-${n}`, client))
      await bot.idle()
    })
    return { figures: { ...timed, promisesPerMessage: round(promises / pass, 1) }, tally }
  } finally {
    await bot.stop()
  }
}

/** The timed part of a run: `options.messages` messages, their latencies and what they cost the process. */
async function timedRun(
  options: BenchOptions,
  deliver: Deliver,
  onProgress: (done: number) => void,
): Promise<Omit<RunFigures, 'promisesPerMessage'>> {
  const latencies: number[] = []
  const meter = startWorkMeter()
  const started = performance.now()
  await closedLoop(options.concurrency, options.messages, async (n, client) => {
    const sent = performance.now()
    await deliver(`m${n}`, client)
    latencies.push(performance.now() - sent)
    onProgress(latencies.length)
  })
  const seconds = (performance.now() - started) / 1_000
  const cost = meter.stop()
  latencies.sort((a, b) => a - b)
  return {
    seconds: round(seconds, 3),
    messagesPerSecond: round(options.messages / seconds, 1),
    msPerMessage: round((seconds * 1_000) / options.messages, 4),
    p50Ms: round(percentile(latencies, 0.5), 2),
    p99Ms: round(percentile(latencies, 0.99), 2),
    ...costPerMessage(cost, options.messages),
  }
}

/** A run's cost divided by its messages. */
export function costPerMessage(
  cost: WorkCost,
  messages: number,
): Pick<RunFigures, 'cpuMicrosPerMessage' | 'allocatedBytesPerMessage' | 'gcMicrosPerMessage'> {
  return {
    cpuMicrosPerMessage: round(cost.cpuMicros / messages, 1),
    allocatedBytesPerMessage: Math.round(cost.allocatedBytes / messages),
    gcMicrosPerMessage: round(cost.gcMicros / messages, 2),
  }
}
