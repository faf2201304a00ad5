/**
 * `stats`: counts per state of the inbox and outbox (from the index counts, so a million records
 * cost what ten do), the oldest pending record's age (the first entry of the pending index), the
 * dead letters, the purge backlog (purge-backlog.ts), the live instances and their metrics. Rates come from the heartbeats: each
 * instance's counters over its uptime, or, when watching, the change between two samples.
 */
import type { DurabilityBackend, Journal } from '../core/durability/journal/backend.js'
import { chooseScope, type ScopeChoice } from './scope.js'
import { INBOX_STATES, OUTBOX_STATES } from '../core/durability/journal/records.js'
import { heartbeatRates, journalFailures, type FailureRate } from './failure-rate.js'
import { listInstances } from './instances.js'
import { backlogRetention, collectPurgeBacklog, type PurgeBacklogFigures } from './purge-backlog.js'

/** The states the counts are listed in, in order (the dashboard's counts panel shows them so). */
export { INBOX_STATES, OUTBOX_STATES }

/** One journal's figures. */
export interface JournalStats {
  counts: Record<string, number>
  total: number
  /** How long the oldest pending record has waited since its last change (null: none pending). */
  oldestPendingAgeMs: number | null
}

/** What `stats` reports for a scope. */
export interface Stats {
  scope: string
  /** When the figures were taken (the backend's clock). */
  at: number
  inbox: JournalStats
  outbox: JournalStats
  dead: { inbox: number; outbox: number }
  instances: { live: number; ids: string[] }
  /** The live instances' metrics, summed. */
  metrics: Record<string, number>
  /** Per second: counters over uptime, or over the interval since the previous sample when watching. */
  ratesPerSecond: Record<string, number>
  /** What the rates are measured over. */
  ratesOver: 'uptime' | 'interval'
  /** Throughput and failures per minute, from the heartbeats and from the journal. */
  perMinute: FailureRate
  /** Done and sent records past the retention, not yet purged; null with retention 0 (nothing is purged). */
  purgeBacklog: PurgeBacklogFigures | null
}

/** What the operator says about the figures. */
export interface StatsOptions {
  /** The retention the purge backlog is judged by (default: the live instances', else 7d). */
  retentionMs?: number
}

/** Takes the figures of a scope; `previous` (the last sample while watching) turns counters into interval rates. */
export async function collectStats(journal: Journal, now: number, previous?: Stats, options: StatsOptions = {}): Promise<Stats> {
  const [inbox, outbox, instances, failures] = await Promise.all([
    journalStats(journal, 'inbox', INBOX_STATES, now),
    journalStats(journal, 'outbox', OUTBOX_STATES, now),
    listInstances(journal, now),
    journalFailures(journal, now),
  ])
  const purgeBacklog = await collectPurgeBacklog(journal, now, backlogRetention(instances, options.retentionMs))
  const metrics: Record<string, number> = {}
  const uptimeRates: Record<string, number> = {}
  for (const instance of instances) {
    // The counters were taken at the last beat: they cover the time from the start to it.
    const seconds = (instance.lastBeatAt - instance.startedAt) / 1_000
    for (const [name, value] of Object.entries(instance.metrics)) {
      metrics[name] = (metrics[name] ?? 0) + value
      uptimeRates[name] = (uptimeRates[name] ?? 0) + (seconds > 0 ? value / seconds : 0)
    }
  }
  const interval = previous && now > previous.at ? (now - previous.at) / 1_000 : undefined
  const ratesPerSecond = interval ? intervalRates(metrics, previous!.metrics, interval) : uptimeRates
  return {
    scope: journal.scopeId,
    at: now,
    inbox,
    outbox,
    dead: { inbox: inbox.counts.dead ?? 0, outbox: outbox.counts.dead ?? 0 },
    instances: { live: instances.length, ids: instances.map((instance) => instance.instanceId) },
    metrics,
    ratesPerSecond,
    ratesOver: interval ? 'interval' : 'uptime',
    perMinute: { heartbeats: heartbeatRates(ratesPerSecond, instances.length), journal: failures },
    purgeBacklog,
  }
}

async function journalStats(journal: Journal, kind: 'inbox' | 'outbox', states: readonly string[], now: number): Promise<JournalStats> {
  const [found, oldest] = await Promise.all([journal.count(kind), journal.list(kind, { state: 'pending', limit: 1 })])
  const counts = Object.fromEntries(states.map((state) => [state, found[state] ?? 0]))
  const first = oldest[0]?.record
  return {
    counts,
    total: Object.values(counts).reduce((sum, n) => sum + n, 0),
    oldestPendingAgeMs: first ? Math.max(0, now - first.updatedAt) : null,
  }
}

/** Counter increases over the interval; a counter that went down (an instance restarted or left) counts from 0. */
function intervalRates(metrics: Record<string, number>, before: Record<string, number>, seconds: number): Record<string, number> {
  const rates: Record<string, number> = {}
  for (const [name, value] of Object.entries(metrics)) {
    const delta = value - (before[name] ?? 0)
    rates[name] = (delta >= 0 ? delta : value) / seconds
  }
  return rates
}

/** Samples every `intervalMs` until `times` samples were taken or the signal aborts, handing each to `onSample`. */
export async function watchStats(
  journal: Journal,
  now: () => Promise<number>,
  options: StatsOptions & { intervalMs: number; times?: number; signal?: AbortSignal },
  onSample: (stats: Stats) => void,
): Promise<number> {
  let previous: Stats | undefined
  let taken = 0
  while (!options.signal?.aborted && (options.times === undefined || taken < options.times)) {
    previous = await collectStats(journal, await now(), previous, options)
    taken++
    onSample(previous)
    if (options.times !== undefined && taken >= options.times) break
    await sleep(options.intervalMs, options.signal)
  }
  return taken
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms)
    function done() {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    signal?.addEventListener('abort', done, { once: true })
  })
}

/** The stats of the chosen scope, or of every scope when none is chosen (`--prometheus`). */
export async function collectScopes(backend: DurabilityBackend, choice: ScopeChoice, options: StatsOptions = {}): Promise<Stats[]> {
  const scopes =
    choice.scope !== undefined || choice.bot !== undefined ? [await chooseScope(backend, choice)] : (await backend.scopes()).sort()
  const now = await backend.now()
  return Promise.all(scopes.map((scope) => collectStats(backend.journal(scope), now, undefined, options)))
}
