/**
 * `replay`: re-queue inbound records (dead, failed or done) with a fresh run budget, by id or in
 * bulk. Each goes through the library's `replayInbound` (a compare-and-set with an audit entry);
 * the running bot's sweeper processes them.
 */
import type { Journal } from '../core/durability/journal/backend.js'
import { REPLAYABLE_STATES, replayInbound, type OperatorChange } from '../core/durability/operations/operations.js'
import { applyEach, planFiltered, planNamed, type ItemOutcome, type Pace, type Plan } from './bulk.js'
import { lanesOf, type RecordFilters } from './records.js'

/** Which records: named ids, or every record of some states that passes the filters. */
export type Selection = { ids: string[] } | { states: string[]; filters: RecordFilters; limit?: number }

/** What `replay` would touch. */
export function planReplay(journal: Journal, selection: Selection): Promise<Plan> {
  if ('ids' in selection) return planNamed(journal, 'inbox', selection.ids, REPLAYABLE_STATES, true)
  return planFiltered(journal, lanesOf(['inbox'], selection.states), selection.filters, selection.limit)
}

/** Replays each planned record. */
export function applyReplay(journal: Journal, plan: Plan, change: OperatorChange, pace?: Pace): Promise<ItemOutcome[]> {
  return applyEach(plan.ids, async (id) => [(await replayInbound(journal, id, change)).id], pace)
}
