/**
 * One refresh: what the dashboard reads from a scope, all of it through the CLI's services and
 * none of it a full scan. Counts come from the index counts (`collectStats` → `journal.count`),
 * the instances are their heartbeat records, the leases and the dead letters are pages read from
 * the state-time index. A million records cost what a hundred do.
 */
import type { DurabilityBackend } from '../../core/durability/journal/backend.js'
import { listInstances, listLeases, type InstanceView, type LeaseView } from '../../operator/instances.js'
import { groupDeadLetters, type ErrorGroups } from '../../operator/error-groups.js'
import type { FailureRate } from '../../operator/failure-rate.js'
import type { PurgeBacklogFigures } from '../../operator/purge-backlog.js'
import { collectStats } from '../../operator/stats.js'
import { lanesOf, listRecords, RETRY_QUEUE_STATES, type Cursor, type RecordSummary } from '../../operator/records.js'
import { readDeadPage, type DeadPage } from './dead-pages.js'
import { DASHBOARD_LIMITS } from '../limits.js'
import { matchesText } from './text-filter.js'
import { lostRunsOf, type LostRun } from '../views/instance-rows.js'

/** The three dead-letter panels: a lane of the state-time index each. */
export const DEAD_LANES = {
  inboxDead: { kind: 'inbox', state: 'dead' },
  outboxDead: { kind: 'outbox', state: 'dead' },
  unknown: { kind: 'outbox', state: 'unknown' },
} as const
export type DeadPanelId = keyof typeof DEAD_LANES
export const DEAD_PANELS = Object.keys(DEAD_LANES) as DeadPanelId[]

/** What one refresh asks for. */
export interface SnapshotQuery {
  scope: string
  /** Text the lists are filtered by ('' for none). */
  filter: string
  /** Where each dead-letter page starts (undefined: the first page). */
  pages: Record<DeadPanelId, Cursor | undefined>
}

/** What one refresh saw. */
export interface Snapshot {
  scope: string
  /** The backend's clock when the refresh started. */
  at: number
  /** How long the refresh took (ms). */
  tookMs: number
  /** Records per state, from the index counts. */
  counts: { inbox: Record<string, number>; outbox: Record<string, number> }
  /** How long the oldest pending record has waited (null: none pending). */
  oldestPendingMs: { inbox: number | null; outbox: number | null }
  /** Done and sent records past the retention, not yet purged (null with retention 0). */
  purgeBacklog: PurgeBacklogFigures | null
  /** Every instance that wrote a heartbeat, live or gone (a stopped heartbeat shows as gone). */
  instances: InstanceView[]
  /** Runs that died, as the instances that replaced them told (the dashboard remembers them a while). */
  lostRuns: LostRun[]
  /** Records under a lease, soonest expiry first; negative `expiresInMs` once expired. */
  leases: LeaseView[]
  /** One page of each dead-letter panel. */
  pages: Record<DeadPanelId, DeadPage>
  /** Throughput and failures per minute (heartbeats and journal). */
  perMinute: FailureRate
  /** Both dead-letter queues grouped by error code and message shape. */
  errorGroups: ErrorGroups
  /** The retry queue: failed records of both journals, soonest retry first. */
  retryQueue: RecordSummary[]
}

/** Reads one snapshot of `query.scope`. */
export async function takeSnapshot(backend: DurabilityBackend, query: SnapshotQuery): Promise<Snapshot> {
  const started = performance.now()
  const journal = backend.journal(query.scope)
  const at = await backend.now()
  const [stats, instances, leases, errorGroups, retries, ...pages] = await Promise.all([
    collectStats(journal, at),
    listInstances(journal, at, { all: true }),
    listLeases(journal, at, DASHBOARD_LIMITS.leasesMax),
    groupDeadLetters(journal, ['inbox', 'outbox'], {}, DASHBOARD_LIMITS.errorGroupScanMax),
    listRecords(journal, lanesOf(['inbox', 'outbox'], RETRY_QUEUE_STATES), {}, { limit: DASHBOARD_LIMITS.retryQueueMax }),
    ...DEAD_PANELS.map((panel) => readDeadPage(journal, DEAD_LANES[panel], query.filter, query.pages[panel])),
  ])
  const text = query.filter
  const shown = instances
    .filter((instance) => matchesText(text, [instance.instanceId, instance.host, String(instance.pid), instance.botId]))
    .sort((a, b) => Number(b.live) - Number(a.live) || a.instanceId.localeCompare(b.instanceId))
  return {
    scope: query.scope,
    at,
    tookMs: performance.now() - started,
    counts: { inbox: stats.inbox.counts, outbox: stats.outbox.counts },
    oldestPendingMs: { inbox: stats.inbox.oldestPendingAgeMs, outbox: stats.outbox.oldestPendingAgeMs },
    purgeBacklog: stats.purgeBacklog,
    instances: shown,
    lostRuns: lostRunsOf(shown),
    leases: leases.filter((lease) => matchesText(text, [lease.id, lease.chatId, lease.owner, lease.kind])),
    pages: Object.fromEntries(DEAD_PANELS.map((panel, index) => [panel, pages[index]!])) as Record<DeadPanelId, DeadPage>,
    perMinute: stats.perMinute,
    errorGroups,
    retryQueue: retries.records.sort((a, b) => (a.nextAttemptAt ?? Infinity) - (b.nextAttemptAt ?? Infinity)),
  }
}
