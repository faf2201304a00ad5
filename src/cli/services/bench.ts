/**
 * `bench`: messages per second through the full journal path. A message is one inbound journaled,
 * a handler, one reply sent through the outbox (docs/performance.md). `concurrency` clients each send a
 * message to their own chat and wait for its reply before sending the next (a closed loop), so
 * latency is the time from delivery to the reply reaching the channel. The same run without
 * durability gives the baseline, and the ratio of the two is the figure that holds across
 * machines. Round trips are the backend calls a wrapper counted, per message, and writes the
 * records those calls wrote (each a compare-and-set). Beside it, the raw store's ceiling
 * (ceiling.ts: what the store does without botmesh, same machine, same durability setting) and
 * the ratio of the two; on memory the ceiling is the run without durability.
 */
import { Bot } from '../../core/bot.js'
import type { DurabilityBackend } from '../../core/durability/backend.js'
import { textOf } from '../../core/hooks.js'
import { TEXT } from '../../core/matchers.js'
import type { OutboundContent, ProviderSendResult } from '../../core/provider.js'
import { MockProvider } from '../../core/testing/mock-provider.js'
import type { ThrowawayFactory } from '../../backends/open.js'
import { measureCeiling, type CeilingFigures, type CeilingPlace } from './ceiling.js'
import { closedLoop, percentile, round } from './closed-loop.js'
import { CountingBackend, type CallCounts } from './counting-backend.js'

/** How much to send. */
export interface BenchOptions {
  messages: number
  concurrency: number
  /** Where and how long to measure the raw store's ceiling; without it none is measured. */
  ceiling?: { place: CeilingPlace; operations: number; connectTimeoutMs?: number }
  onProgress?(done: number, total: number, phase: 'durable' | 'baseline' | 'ceiling'): void
}

/** One run's figures. */
export interface RunFigures {
  seconds: number
  messagesPerSecond: number
  msPerMessage: number
  p50Ms: number
  p99Ms: number
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
  /** Backend calls per message on the message path (the background loops' calls are in backgroundCallsPerMessage). */
  roundTripsPerMessage: number
  /** Calls of the sweeper and the instance heartbeat during the run, per message: not a message's cost. */
  backgroundCallsPerMessage: number
  callsPerMessage: Record<keyof CallCounts, number>
  /** Records written (compare-and-sets) per message, however many calls carried them. */
  writesPerMessage: number
  /** The raw store's ceiling; null when not measured (--ceiling 0, a Redis Cluster). */
  ceiling: CeilingFigures | null
  /** Durable messages/s over the ceiling's operations/s, null when not measured. */
  ceilingRatio: number | null
}

/** Messages each client sends before measuring starts (connections, prepared statements, JIT). */
const WARMUP_PER_CLIENT = 3

/** Runs the benchmark on a throwaway instance, then the baseline. */
export async function runBench(label: string, factory: ThrowawayFactory, options: BenchOptions): Promise<BenchReport> {
  const inner = await factory.create()
  const counting = new CountingBackend(inner)
  let durable: RunFigures
  try {
    durable = await measure(counting, options, (done) => options.onProgress?.(done, options.messages, 'durable'))
  } finally {
    await factory.cleanup(inner)
  }
  const baseline = await measure(undefined, options, (done) => options.onProgress?.(done, options.messages, 'baseline'))
  const ceiling = await ceilingOf(options, baseline)
  const perMessage = (n: number) => round(n / options.messages, 2)
  return {
    backend: label,
    instances: factory.description,
    messages: options.messages,
    concurrency: options.concurrency,
    durable,
    baseline,
    slowdown: round(durable.msPerMessage / baseline.msPerMessage, 2),
    roundTripsPerMessage: perMessage(counting.total - counting.background),
    backgroundCallsPerMessage: perMessage(counting.background),
    callsPerMessage: Object.fromEntries(Object.entries(counting.calls).map(([verb, n]) => [verb, perMessage(n)])) as Record<
      keyof CallCounts,
      number
    >,
    writesPerMessage: perMessage(counting.recordsWritten),
    ceiling: ceiling ?? null,
    ceilingRatio: ceiling ? round(durable.messagesPerSecond / ceiling.perSecond, 3) : null,
  }
}

/** The raw store's ceiling where asked for; on memory, the run without durability. */
async function ceilingOf(options: BenchOptions, baseline: RunFigures): Promise<CeilingFigures | undefined> {
  if (!options.ceiling) return undefined
  const { place, operations, connectTimeoutMs } = options.ceiling
  if (place.kind === 'memory') {
    return {
      name: 'the same bot without durability',
      unit: 'message',
      operations: options.messages,
      clients: options.concurrency,
      seconds: baseline.seconds,
      perSecond: baseline.messagesPerSecond,
    }
  }
  options.onProgress?.(0, operations, 'ceiling')
  return measureCeiling(place, { operations, clients: options.concurrency, connectTimeoutMs })
}

/** A provider that tells the bench when the reply to a message reached the channel. */
class BenchProvider extends MockProvider {
  readonly #waiting = new Map<string, () => void>()

  replyTo(text: string): Promise<void> {
    return new Promise((resolve) => this.#waiting.set(`re:${text}`, resolve))
  }

  override async send(chatId: string, content: OutboundContent): Promise<ProviderSendResult> {
    const result = await super.send(chatId, content)
    this.sent.length = 0 // the bench needs no log of what went out; a long run must not grow one
    const text = textOf(content) ?? ''
    this.#waiting.get(text)?.()
    this.#waiting.delete(text)
    return result
  }
}

/** One closed-loop run; with a backend the bot journals, without one it runs in memory. */
async function measure(
  backend: CountingBackend | undefined,
  options: BenchOptions,
  onProgress: (done: number) => void,
): Promise<RunFigures> {
  const provider = new BenchProvider()
  const bot = new Bot({
    provider,
    botId: 'bench',
    logger: { warn: () => {}, error: () => {} },
    ...(backend && { durability: { backend: backend as DurabilityBackend, instanceId: 'bench-1' } }),
  })
  bot.on('error', () => {})
  bot.when(TEXT, (ctx) => ctx.reply(`re:${ctx.message.text}`))
  await bot.start()
  try {
    const deliver = async (id: string, client: number) => {
      const reply = provider.replyTo(id)
      await provider.receive({ id, chatId: `bench-chat-${client}`, text: id })
      await reply
    }
    await closedLoop(options.concurrency, WARMUP_PER_CLIENT * options.concurrency, (n, client) => deliver(`warmup-${n}`, client))
    // A reply goes out before its message is completed: the warm-up's completions land before counting starts.
    await bot.idle()
    backend?.reset()
    const latencies: number[] = []
    const started = performance.now()
    await closedLoop(options.concurrency, options.messages, async (n, client) => {
      const sent = performance.now()
      await deliver(`m${n}`, client)
      latencies.push(performance.now() - sent)
      onProgress(latencies.length)
    })
    const seconds = (performance.now() - started) / 1_000
    latencies.sort((a, b) => a - b)
    return {
      seconds: round(seconds, 3),
      messagesPerSecond: round(options.messages / seconds, 1),
      msPerMessage: round((seconds * 1_000) / options.messages, 4),
      p50Ms: round(percentile(latencies, 0.5), 2),
      p99Ms: round(percentile(latencies, 0.99), 2),
    }
  } finally {
    await bot.stop()
  }
}
