/** Human views of scopes, stats, instances and leases. */
import type { Block } from '../output.js'
import { table } from '../output.js'
import type { InstanceView, LeaseView } from '../../operator/instances.js'
import type { ScopeSummary } from '../../operator/scopes.js'
import type { Stats } from '../../operator/stats.js'
import { LIMITS } from '../../core/durability/limits.js'
import { ago, duration, perSecond } from './format.js'
import { failureRateFields } from './failure-rate.js'

export function scopesView(scopes: ScopeSummary[]): Block[] {
  return [
    table(
      [
        { header: 'scope', value: (s: ScopeSummary) => s.scope, maxWidth: 70, minWidth: 24, priority: 4 },
        { header: 'inbox', value: (s) => s.inbox, align: 'right', priority: 1 },
        { header: 'outbox', value: (s) => s.outbox, align: 'right', priority: 1 },
        { header: 'dead', value: (s) => s.dead, align: 'right', tone: (s) => (s.dead > 0 ? 'red' : undefined), priority: 2 },
        { header: 'instances', value: (s) => s.instances, align: 'right', priority: 1 },
      ],
      scopes,
      '(no scopes: the backend holds no records)',
    ),
  ]
}

/** The states in the stats view, in the order a record moves through them (either journal's). */
const STATS_STATES = ['pending', 'processing', 'sending', 'done', 'sent', 'failed', 'unknown', 'dead']

/** Rates shown in the stats view (every metric is in --json). */
const RATE_METRICS = ['inboundJournaled', 'outboxJournaled', 'outboxRetried', 'inboundDead', 'outboxDead'] as const

/** One line of the stats table: a state (or the total, or the oldest pending age) across both journals. */
interface StatsLine {
  label: string
  inbox: string | number
  outbox: string | number
}

/**
 * The journals side by side, a state a line (states are rows, so the table stays three columns
 * wide and fits 80 columns whatever the counts).
 */
export function statsView(stats: Stats): Block[] {
  const count = (kind: 'inbox' | 'outbox', state: string) => stats[kind].counts[state] ?? ''
  const age = (ms: number | null) => (ms === null ? '-' : duration(ms))
  const lines: StatsLine[] = [
    ...STATS_STATES.map((state) => ({ label: state, inbox: count('inbox', state), outbox: count('outbox', state) })),
    { label: 'total', inbox: stats.inbox.total, outbox: stats.outbox.total },
    { label: 'oldest pending', inbox: age(stats.inbox.oldestPendingAgeMs), outbox: age(stats.outbox.oldestPendingAgeMs) },
    ...(stats.purgeBacklog ? [backlogLine(stats.purgeBacklog)] : []),
  ]
  const deadTone = (line: StatsLine) => (line.label === 'dead' && (Number(line.inbox) > 0 || Number(line.outbox) > 0) ? 'red' : undefined)
  return [
    { text: `scope ${stats.scope}`, tone: 'bold' },
    table(
      [
        { header: 'state', value: (line: StatsLine) => line.label, tone: deadTone, priority: 2 },
        { header: 'inbox', value: (line) => line.inbox, align: 'right', priority: 1 },
        { header: 'outbox', value: (line) => line.outbox, align: 'right', priority: 1 },
      ],
      lines,
    ),
    {
      fields: [
        ['dead letters', `${stats.dead.inbox} inbound, ${stats.dead.outbox} outbound`],
        ['retention', retentionText(stats.purgeBacklog)],
        [
          'live instances',
          stats.instances.live === 0
            ? '0 (no bot is beating in this scope: nothing processes due records)'
            : `${stats.instances.live}: ${stats.instances.ids.join(', ')}`,
        ],
        // No instance reports: a rate of 0.0/s would claim that nothing comes in.
        stats.instances.live === 0
          ? ['rates', 'unknown: no live instance reports its counters']
          : [
              `rates (${stats.ratesOver === 'interval' ? 'last interval' : 'since start'})`,
              RATE_METRICS.map((name) => `${name} ${perSecond(stats.ratesPerSecond[name])}`).join(', '),
            ],
        // In the same block, so every label lines up.
        ...failureRateFields(stats),
      ],
    },
  ]
}

/** The purge backlog as a row of the table: done inbox records and sent outbox records past the retention. */
function backlogLine(backlog: NonNullable<Stats['purgeBacklog']>): StatsLine {
  const atLeast = (n: number) => (backlog.capped ? `≥ ${n}` : n)
  return { label: 'purge backlog', inbox: atLeast(backlog.inbox), outbox: atLeast(backlog.outbox) }
}

const RETENTION_FROM = { flag: '--retention', instances: 'the live instances', default: 'the default; no live instance reports one' }

function retentionText(backlog: Stats['purgeBacklog']): string {
  if (!backlog) return '0 (records are kept: nothing is purged)'
  return `${duration(backlog.retentionMs)} (${RETENTION_FROM[backlog.retentionFrom]}): the purge backlog is done and sent records older than it`
}

export function instancesView(now: number) {
  return (instances: InstanceView[]): Block[] => [
    table(
      [
        { header: 'instance', value: (i: InstanceView) => i.instanceId, whole: true, priority: 5 },
        { header: 'bot', value: (i) => i.botId, priority: 2 },
        { header: 'host', value: (i) => i.host, priority: 1 },
        { header: 'pid', value: (i) => i.pid, align: 'right', priority: 1 },
        { header: 'role', value: (i) => (i.leader ? 'leader' : ''), priority: 3 },
        { header: 'turns', value: (i) => turnsCell(i.turns ?? []), maxWidth: 30, priority: 1 },
        {
          header: 'status',
          value: (i) => (i.status === 'silent' ? `silent for ${duration(i.lastBeatAgoMs)}` : i.status),
          tone: (i) => (i.status === 'live' ? undefined : 'red'),
          minWidth: 18,
          priority: 5,
        },
        { header: 'up', value: (i) => duration(i.uptimeMs), priority: 2 },
        { header: 'last beat', value: (i) => ago(i.lastBeatAt, now), tone: (i) => (i.live ? undefined : 'red'), minWidth: 12, priority: 4 },
        { header: 'last sweep', value: (i) => ago(i.lastSweepAt, now), priority: 0 },
        { header: 'inbound', value: (i) => i.metrics.inboundJournaled ?? 0, align: 'right', priority: 1 },
        { header: 'sends', value: (i) => i.metrics.outboxJournaled ?? 0, align: 'right', priority: 1 },
        { header: 'dead', value: (i) => (i.metrics.inboundDead ?? 0) + (i.metrics.outboxDead ?? 0), align: 'right', priority: 3 },
      ],
      instances,
      '(no live instances: no bot has beaten in this scope recently)',
    ),
    // A run that took over from one that died (same instanceId) says so: otherwise only its pid changed.
    ...instances.flatMap((i): Block[] => (i.previousRun ? [{ text: lostRunNote(i, now), tone: 'red' }] : [])),
    // The counters travel in the heartbeat: a bot that just journaled messages still shows the last beat's.
    ...(instances.length > 0 ? [{ text: BEAT_LAG_NOTE, tone: 'dim' as const }] : []),
  ]
}

/** "i1: the run before, pid 4242 on vm, ended without a graceful stop (last beat 12s ago); pid 4313 took back …" */
function lostRunNote(instance: InstanceView, now: number): string {
  const run = instance.previousRun!
  return `${instance.instanceId}: the run before, pid ${run.pid} on ${run.host}, ended without a graceful stop (killed or crashed; last beat ${ago(run.lastBeatAt, now)}); pid ${instance.pid} took back what it held: ${run.inboxTakenBack} inbound record(s), ${run.outboxTakenBack} send(s)`
}

/** Why a bot's counts may trail what it did: they are read from its heartbeat. */
export const BEAT_LAG_NOTE = `inbound, sends and dead are each bot's counters at its last beat (one every ${duration(LIMITS.instanceBeatMs)}): what it did since is not counted yet`

export function leasesView(leases: LeaseView[]): Block[] {
  return [
    table(
      [
        { header: 'kind', value: (l: LeaseView) => l.kind, priority: 3 },
        { header: 'record', value: (l) => l.id, whole: true, priority: 4 },
        { header: 'chat', value: (l) => l.chatId, maxWidth: 24, priority: 1 },
        { header: 'owner', value: (l) => l.owner, maxWidth: 40, priority: 2 },
        { header: 'token', value: (l) => l.token, align: 'right', priority: 1 },
        {
          header: 'expires in',
          value: (l) => (l.expiresInMs >= 0 ? duration(l.expiresInMs) : `expired ${duration(-l.expiresInMs)} ago`),
          tone: (l) => (l.expiresInMs < 0 ? 'red' : undefined),
          priority: 4,
        },
      ],
      leases,
      '(no active leases)',
    ),
  ]
}

/** The chats whose turn a replica holds: the first two, and how many more. */
function turnsCell(turns: string[]): string {
  return turns.length > 2 ? `${turns.slice(0, 2).join(' ')} +${turns.length - 2}` : turns.join(' ')
}
