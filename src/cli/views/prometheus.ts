/**
 * `stats --prometheus`: the Prometheus text exposition format, for node_exporter's textfile
 * collector (write it to a .prom file from cron). Gauges for records by state, the oldest pending
 * age, dead letters, the purge backlog and live instances; counters for the live instances' metrics.
 */
import type { Stats } from '../../operator/stats.js'

/** The exposition text of the scopes' stats. */
export function prometheusText(all: readonly Stats[]): string {
  const lines: string[] = []
  const family = (name: string, type: 'gauge' | 'counter', help: string, samples: [Record<string, string>, number][]) => {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`)
    for (const [labels, value] of samples) lines.push(`${name}{${labelText(labels)}} ${Number.isFinite(value) ? value : 0}`)
  }
  family(
    'botmesh_inbox_records',
    'gauge',
    'Inbox records by state.',
    all.flatMap((s) =>
      Object.entries(s.inbox.counts).map(([state, n]) => [{ scope: s.scope, state }, n] as [Record<string, string>, number]),
    ),
  )
  family(
    'botmesh_outbox_records',
    'gauge',
    'Outbox records by state.',
    all.flatMap((s) =>
      Object.entries(s.outbox.counts).map(([state, n]) => [{ scope: s.scope, state }, n] as [Record<string, string>, number]),
    ),
  )
  family(
    'botmesh_oldest_pending_age_seconds',
    'gauge',
    'Age of the oldest pending record since its last change (0 when none).',
    perKind(all, (s, kind) => (s[kind].oldestPendingAgeMs ?? 0) / 1_000),
  )
  family(
    'botmesh_dead_letters',
    'gauge',
    'Dead-lettered records.',
    perKind(all, (s, kind) => s.dead[kind]),
  )
  family(
    'botmesh_purge_backlog',
    'gauge',
    'Done (inbox) and sent (outbox) records past the retention, not yet purged (none with retention 0).',
    perKind(all, (s, kind) => s.purgeBacklog?.[kind] ?? 0),
  )
  family(
    'botmesh_live_instances',
    'gauge',
    'Instances whose heartbeat has not expired.',
    all.map((s) => [{ scope: s.scope }, s.instances.live]),
  )
  const names = [...new Set(all.flatMap((s) => Object.keys(s.metrics)))].sort()
  for (const name of names) {
    family(
      `botmesh_${snake(name)}_total`,
      'counter',
      `The live instances' ${name} counter, summed.`,
      all.map((s) => [{ scope: s.scope }, s.metrics[name] ?? 0]),
    )
  }
  return `${lines.join('\n')}\n`
}

/** One sample per scope and journal. */
function perKind(all: readonly Stats[], value: (stats: Stats, kind: 'inbox' | 'outbox') => number): [Record<string, string>, number][] {
  return all.flatMap((s) =>
    (['inbox', 'outbox'] as const).map((kind): [Record<string, string>, number] => [{ scope: s.scope, kind }, value(s, kind)]),
  )
}

function snake(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase()
}

function labelText(labels: Record<string, string>): string {
  return Object.entries(labels)
    .map(([name, value]) => `${name}="${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`)
    .join(',')
}
