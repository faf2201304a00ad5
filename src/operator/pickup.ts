/**
 * Who will pick a re-queued record up. `replay` and `retry` only mark records pending: the work is
 * done by the sweeper of a bot running in the scope. With none beating there, the change succeeds
 * and the record then waits, silently, until one starts; the operator is told so.
 */
import type { Journal } from '../core/durability/journal/backend.js'
import { listInstances } from './instances.js'

/** The warnings for records re-queued in `journal`'s scope (none when a live instance beats there). */
export async function pickupWarnings(journal: Journal, now: number, requeued: number): Promise<string[]> {
  if (requeued === 0) return []
  const instances = await listInstances(journal, now)
  if (instances.some((instance) => instance.status === 'live')) return []
  const silent = instances.length > 0 ? ` (${instances.length} instance(s) silent: their beats are late)` : ''
  return [
    `no live instance in scope ${journal.scopeId}${silent}: nothing will pick up the ${requeued} re-queued record(s) until a bot runs there`,
  ]
}
