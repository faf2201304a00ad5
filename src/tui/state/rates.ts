/**
 * Rates per second, from two sources. Records coming in (`in/s`) come from the instances'
 * heartbeat metrics (`inboundJournaled`, `outboxJournaled`): a heartbeat carries a bot's counters
 * every few seconds, so a rate is the counters' change between two beats of one instance over
 * the time between those beats (its counters over its uptime until it beat twice), held until
 * its next beat, and summed over the live instances.
 * Records going out (`done/s`, `sent/s`) come from the index counts: their change between two
 * refreshes. A heartbeat comes every few seconds and carries the counters as they were then, so
 * `in/s` is the larger of the heartbeats' rate and the growth of the journal's total between two
 * refreshes (the only measure when no instance is live).
 * Everything here is pure; the reducer keeps the bounded history.
 */
import type { InstanceView } from '../../operator/instances.js'
import type { Snapshot } from '../io/snapshot.js'

/** One point of the sparklines: rates per second over the interval that ended at `at`. */
export interface RateSample {
  /** The backend's clock at the refresh. */
  at: number
  inboxIn: number
  inboxDone: number
  outboxIn: number
  outboxSent: number
}

/** What an instance's last two heartbeats said. */
export interface BeatMemory {
  lastBeatAt: number
  metrics: Record<string, number>
  /** Counters per second between its last two beats (empty until it beat twice). */
  rates: Record<string, number>
}

/** What the rates need to remember of the previous refresh. */
export interface RateMemory {
  at: number
  counts: Snapshot['counts']
  beats: Record<string, BeatMemory>
}

/** The memory after `snapshot`, and the sample since `previous` (none for the first refresh or a clock that went back). */
export function advanceRates(previous: RateMemory | undefined, snapshot: Snapshot): { memory: RateMemory; sample: RateSample | undefined } {
  const beats = rememberBeats(previous?.beats ?? {}, snapshot.instances)
  const memory: RateMemory = { at: snapshot.at, counts: snapshot.counts, beats }
  if (!previous || snapshot.at <= previous.at) return { memory, sample: undefined }
  const seconds = (snapshot.at - previous.at) / 1_000
  const growth = (journal: 'inbox' | 'outbox', state?: string) => {
    const now = state ? (snapshot.counts[journal][state] ?? 0) : total(snapshot.counts[journal])
    const before = state ? (previous.counts[journal][state] ?? 0) : total(previous.counts[journal])
    // A purge (retention) lowers a count; that is not negative throughput.
    return Math.max(0, now - before) / seconds
  }
  const live = snapshot.instances.filter((instance) => instance.live)
  const heartbeat = (name: string) => live.reduce((sum, instance) => sum + (beats[instance.instanceId]?.rates[name] ?? 0), 0)
  const withMetrics = live.some((instance) => Object.keys(instance.metrics).length > 0)
  return {
    memory,
    sample: {
      at: snapshot.at,
      inboxIn: withMetrics ? Math.max(heartbeat('inboundJournaled'), growth('inbox')) : growth('inbox'),
      inboxDone: growth('inbox', 'done'),
      outboxIn: withMetrics ? Math.max(heartbeat('outboxJournaled'), growth('outbox')) : growth('outbox'),
      outboxSent: growth('outbox', 'sent'),
    },
  }
}

/** Each instance's rates between its last two beats; instances no longer listed are forgotten (bounded). */
function rememberBeats(before: Record<string, BeatMemory>, instances: readonly InstanceView[]): Record<string, BeatMemory> {
  const beats: Record<string, BeatMemory> = {}
  for (const instance of instances) {
    const known = before[instance.instanceId]
    if (known && known.lastBeatAt === instance.lastBeatAt) {
      beats[instance.instanceId] = known
      continue
    }
    let rates: Record<string, number> = {}
    if (!known) {
      // First sight of the instance: its counters over its uptime, until a second beat gives an interval.
      const uptime = (instance.lastBeatAt - instance.startedAt) / 1_000
      if (uptime > 0) rates = Object.fromEntries(Object.entries(instance.metrics).map(([name, value]) => [name, value / uptime]))
    } else if (instance.lastBeatAt > known.lastBeatAt) {
      const seconds = (instance.lastBeatAt - known.lastBeatAt) / 1_000
      // A counter that went down means the instance restarted: count from 0.
      rates = Object.fromEntries(
        Object.entries(instance.metrics).map(([name, value]) => {
          const delta = value - (known.metrics[name] ?? 0)
          return [name, (delta >= 0 ? delta : value) / seconds]
        }),
      )
    }
    beats[instance.instanceId] = { lastBeatAt: instance.lastBeatAt, metrics: instance.metrics, rates }
  }
  return beats
}

function total(counts: Record<string, number>): number {
  return Object.values(counts).reduce((sum, n) => sum + n, 0)
}
