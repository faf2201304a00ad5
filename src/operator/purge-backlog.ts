/**
 * The purge backlog `stats` and the dashboard show: done and sent records past the retention that
 * no retention pass has deleted yet. Flat near 0 means retention keeps pace with the traffic; a
 * backlog that grows means it does not (or no bot runs to purge). The retention is the bot's, not
 * the journal's: the operator's `--retention`, else the live instances' (their heartbeats carry
 * it; the shortest, since that bot purges first), else the default.
 */
import type { Journal } from '../core/durability/journal/backend.js'
import { RETENTION_DEFAULT } from '../core/durability/config.js'
import { toMs } from '../core/options/duration.js'
import { purgeBacklog, type PurgeBacklog } from '../core/durability/retention/retention.js'
import type { InstanceView } from './instances.js'

/** Where the retention the backlog is judged by came from. */
export type RetentionSource = 'flag' | 'instances' | 'default'

/** The backlog, with the retention it was judged by. */
export interface PurgeBacklogFigures extends PurgeBacklog {
  retentionMs: number
  retentionFrom: RetentionSource
}

/** The retention that applies: the flag's, else the shortest a live instance reports, else the default. */
export function backlogRetention(instances: readonly InstanceView[], flagMs?: number): { ms: number; from: RetentionSource } {
  if (flagMs !== undefined) return { ms: flagMs, from: 'flag' }
  const reported = instances.flatMap((instance) => (instance.limits?.retentionMs === undefined ? [] : [instance.limits.retentionMs]))
  // A live bot with retention 0 purges nothing, but one with a retention purges by it.
  const purging = reported.filter((ms) => ms > 0)
  if (reported.length > 0) return { ms: purging.length > 0 ? Math.min(...purging) : 0, from: 'instances' }
  return { ms: toMs(RETENTION_DEFAULT, 'retention'), from: 'default' }
}

/** The backlog at `now`; null when the retention is 0 (records are kept, nothing is due for a purge). */
export async function collectPurgeBacklog(
  journal: Journal,
  now: number,
  retention: { ms: number; from: RetentionSource },
): Promise<PurgeBacklogFigures | null> {
  if (retention.ms === 0) return null
  const backlog = await purgeBacklog(journal, now - retention.ms)
  return { ...backlog, retentionMs: retention.ms, retentionFrom: retention.from }
}
