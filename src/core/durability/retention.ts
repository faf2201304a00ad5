/**
 * Retention: done and sent records are purged after `retention` (default 7d; 0 keeps them). A
 * redelivery is only recognised while its record exists, so keep it above your channels' longest
 * redelivery window.
 */
import type { DurabilityEngine } from './engine.js'
import { LIMITS } from './limits.js'

/** Deletes done inbox and sent outbox records older than the retention, a bounded batch at a time. */
export async function purgeExpired(engine: DurabilityEngine): Promise<number> {
  const olderThan = engine.now() - engine.config.retentionMs
  const [inbox, outbox] = await Promise.all([
    engine.journal.purge('inbox', 'done', olderThan, LIMITS.purgeBatchMax),
    engine.journal.purge('outbox', 'sent', olderThan, LIMITS.purgeBatchMax),
  ])
  return inbox + outbox
}
