/** The per-minute lines `stats` prints under its table: throughput beside failures, and the oldest pending record. */
import type { Block } from '../output.js'
import type { Stats } from '../services/stats.js'
import { duration } from './format.js'

export function failureRateView(stats: Stats): Block[] {
  const { heartbeats, journal } = stats.perMinute
  const window = duration(journal.windowMs)
  const oldest = [stats.inbox.oldestPendingAgeMs, stats.outbox.oldestPendingAgeMs].filter((age): age is number => age !== null)
  return [
    {
      fields: [
        // No instance reports: a throughput of 0 would claim that nothing comes in.
        ['per minute (bots)', heartbeats ? `throughput ${heartbeats.throughputPerMinute}/min, failures ${heartbeats.failuresPerMinute}/min` : 'unknown: no live instance'],
        ['last minute (journal)', `${journal.failed}${journal.capped ? '+' : ''} failed, ${journal.dead} dead in the last ${window}`],
        ['oldest pending', oldest.length === 0 ? 'none pending' : `${duration(Math.max(...oldest))} waiting`],
      ],
    },
  ]
}
