/** The per-minute lines `stats` prints under its table: throughput beside failures (the oldest pending age is a row of the table). */
import type { Stats } from '../../operator/stats.js'
import { duration } from './format.js'

/** The per-minute fields, labelled for the fields block under the stats table. */
export function failureRateFields(stats: Stats): [string, string][] {
  const { heartbeats, journal } = stats.perMinute
  const window = duration(journal.windowMs)
  return [
    // No instance reports: a throughput of 0 would claim that nothing comes in.
    [
      'per minute (bots)',
      heartbeats
        ? `throughput ${heartbeats.throughputPerMinute}/min, failures ${heartbeats.failuresPerMinute}/min`
        : 'unknown: no live instance',
    ],
    ['last minute (journal)', `${journal.failed}${journal.capped ? '+' : ''} failed, ${journal.dead} dead in the last ${window}`],
  ]
}
