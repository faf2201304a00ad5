/**
 * `discard`: forget sends (delete their records) through the library's `discardSend`, a
 * compare-and-set that refuses a send in flight under a live lease.
 */
import type { Journal } from '../core/durability/journal/backend.js'
import { OUTBOX_STATES } from '../core/durability/journal/records.js'
import { discardSend } from '../core/durability/operations/operations.js'
import { applyEach, planFiltered, planNamed, type ItemOutcome, type Pace, type Plan } from './bulk.js'
import { lanesOf } from './records.js'
import type { Selection } from './replay.js'

/** What `discard` would touch (a send in any state may be named; `discardSend` refuses one in flight). */
export function planDiscard(journal: Journal, selection: Selection): Promise<Plan> {
  if ('ids' in selection) return planNamed(journal, 'outbox', selection.ids, OUTBOX_STATES)
  return planFiltered(journal, lanesOf(['outbox'], selection.states), selection.filters, selection.limit)
}

/** Discards each planned send; `now` judges whether a lease is still live. */
export function applyDiscard(journal: Journal, plan: Plan, now: () => Promise<number>, pace?: Pace): Promise<ItemOutcome[]> {
  return applyEach(plan.ids, async (key) => [(await discardSend(journal, key, await now())).key], pace)
}
