/** Human views of scopes, stats, instances and leases. */
import type { Block } from '../output.js'
import { table } from '../output.js'
import type { InstanceView, LeaseView } from '../services/instances.js'
import type { ScopeSummary } from '../services/scopes.js'
import type { Stats } from '../services/stats.js'
import { ago, duration, perSecond } from './format.js'

export function scopesView(scopes: ScopeSummary[]): Block[] {
  return [
    table(
      [
        { header: 'scope', value: (s: ScopeSummary) => s.scope, maxWidth: 70 },
        { header: 'inbox', value: (s) => s.inbox, align: 'right' },
        { header: 'outbox', value: (s) => s.outbox, align: 'right' },
        { header: 'dead', value: (s) => s.dead, align: 'right', tone: (s) => (s.dead > 0 ? 'red' : undefined) },
        { header: 'instances', value: (s) => s.instances, align: 'right' },
      ],
      scopes,
      '(no scopes: the backend holds no records)',
    ),
  ]
}

/** Rates shown in the stats view (every metric is in --json). */
const RATE_METRICS = ['inboundJournaled', 'outboxJournaled', 'outboxRetried', 'inboundDead', 'outboxDead'] as const

export function statsView(stats: Stats): Block[] {
  const row = (kind: 'inbox' | 'outbox') => ({ kind, ...stats[kind].counts, total: stats[kind].total, oldest: stats[kind].oldestPendingAgeMs })
  const states = ['pending', 'processing', 'sending', 'done', 'sent', 'failed', 'unknown', 'dead']
  const rows = [row('inbox'), row('outbox')] as Record<string, number | string | null>[]
  return [
    { text: `scope ${stats.scope}`, tone: 'bold' },
    table(
      [
        { header: '', value: (r: Record<string, number | string | null>) => r.kind },
        ...states.map((state) => ({ header: state, value: (r: Record<string, number | string | null>) => (r[state] === undefined ? '' : r[state]), align: 'right' as const })),
        { header: 'total', value: (r) => r.total, align: 'right' },
        { header: 'oldest pending', value: (r) => (r.oldest === null ? '-' : duration(Number(r.oldest))) },
      ],
      rows,
    ),
    {
      fields: [
        ['dead letters', `${stats.dead.inbox} inbound, ${stats.dead.outbox} outbound`],
        ['live instances', stats.instances.live === 0 ? '0 (no bot is beating in this scope: nothing processes due records)' : `${stats.instances.live}: ${stats.instances.ids.join(', ')}`],
        // No instance reports: a rate of 0.0/s would claim that nothing comes in.
        stats.instances.live === 0
          ? ['rates', 'unknown: no live instance reports its counters']
          : [`rates (${stats.ratesOver === 'interval' ? 'last interval' : 'since start'})`, RATE_METRICS.map((name) => `${name} ${perSecond(stats.ratesPerSecond[name])}`).join(', ')],
      ],
    },
  ]
}

export function instancesView(now: number) {
  return (instances: InstanceView[]): Block[] => [
    table(
      [
        { header: 'instance', value: (i: InstanceView) => i.instanceId, maxWidth: 50 },
        { header: 'bot', value: (i) => i.botId },
        { header: 'host', value: (i) => i.host },
        { header: 'pid', value: (i) => i.pid, align: 'right' },
        { header: 'role', value: (i) => (i.leader ? 'leader' : '') },
        { header: 'turns', value: (i) => turnsCell(i.turns ?? []), maxWidth: 30 },
        { header: 'status', value: (i) => (i.status === 'silent' ? `silent for ${duration(i.lastBeatAgoMs)}` : i.status), tone: (i) => (i.status === 'live' ? undefined : 'red') },
        { header: 'up', value: (i) => duration(i.uptimeMs) },
        { header: 'last beat', value: (i) => ago(i.lastBeatAt, now), tone: (i) => (i.live ? undefined : 'red') },
        { header: 'last sweep', value: (i) => ago(i.lastSweepAt, now) },
        { header: 'inbound', value: (i) => i.metrics.inboundJournaled ?? 0, align: 'right' },
        { header: 'sends', value: (i) => i.metrics.outboxJournaled ?? 0, align: 'right' },
        { header: 'dead', value: (i) => (i.metrics.inboundDead ?? 0) + (i.metrics.outboxDead ?? 0), align: 'right' },
      ],
      instances,
      '(no live instances: no bot has beaten in this scope recently)',
    ),
  ]
}

export function leasesView(leases: LeaseView[]): Block[] {
  return [
    table(
      [
        { header: 'kind', value: (l: LeaseView) => l.kind },
        { header: 'record', value: (l) => l.id, maxWidth: 48 },
        { header: 'chat', value: (l) => l.chatId, maxWidth: 24 },
        { header: 'owner', value: (l) => l.owner, maxWidth: 40 },
        { header: 'token', value: (l) => l.token, align: 'right' },
        { header: 'expires in', value: (l) => (l.expiresInMs >= 0 ? duration(l.expiresInMs) : `expired ${duration(-l.expiresInMs)} ago`), tone: (l) => (l.expiresInMs < 0 ? 'red' : undefined) },
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
