/**
 * `retry`: re-queue sends (dead, failed or unknown) with a fresh retry budget, by key or in bulk.
 * Each goes through the library's `retrySend` (a compare-and-set with an audit entry; later parts
 * that died with a send are re-queued with it); the running bot's sweeper sends them.
 */
import type { Journal } from '../core/durability/journal/backend.js'
import { RETRYABLE_STATES, retrySend, type OperatorChange } from '../core/durability/operations/operations.js'
import { applyEach, planFiltered, planNamed, type ItemOutcome, type Pace, type Plan } from './bulk.js'
import { lanesOf } from './records.js'
import type { Selection } from './replay.js'

/** What `retry` would touch. */
export function planRetry(journal: Journal, selection: Selection): Promise<Plan> {
  if ('ids' in selection) return planNamed(journal, 'outbox', selection.ids, RETRYABLE_STATES, true)
  return planFiltered(journal, lanesOf(['outbox'], selection.states), selection.filters, selection.limit)
}

/** Retries each planned send. */
export function applyRetry(journal: Journal, plan: Plan, change: OperatorChange, pace?: Pace): Promise<ItemOutcome[]> {
  return applyEach(plan.ids, async (key) => (await retrySend(journal, key, change)).map((record) => record.key), pace)
}
