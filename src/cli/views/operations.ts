/** Human views of what the destructive and bulk commands will touch, and what they did. */
import type { Block } from '../output.js'
import { table } from '../output.js'
import type { BulkOutcome, ItemOutcome, Plan } from '../../operator/bulk.js'
import type { PurgePlan } from '../../operator/purge.js'
import { recordColumns } from './records.js'
import { iso } from './format.js'

/** "replay 42 inbox records (showing 5):" and the sample. */
export function planView(action: string, plan: Plan, now: number): Block[] {
  const more = plan.matched > plan.ids.length ? ` (${plan.matched} match; --limit takes the first ${plan.ids.length})` : ''
  return [
    {
      text: `${action} ${plan.ids.length} ${plan.kind} record(s)${more}${plan.sample.length < plan.ids.length ? `, for example:` : ':'}`,
      tone: 'bold',
    },
    table(recordColumns(now, false), plan.sample),
  ]
}

/** What a bulk command did. */
export function outcomeView(outcome: BulkOutcome): Block[] {
  if (outcome.dryRun) return [{ text: `dry run: nothing was changed (${outcome.matched} record(s) match)`, tone: 'dim' }]
  const failures: ItemOutcome[] = outcome.items.filter((item) => !item.ok)
  const blocks: Block[] = [
    {
      text: `${outcome.action}: ${outcome.succeeded} of ${outcome.attempted} done${outcome.failed ? `, ${outcome.failed} failed` : ''}${outcome.reason ? ` (reason: ${outcome.reason})` : ''}`,
      tone: outcome.failed ? 'red' : 'green',
    },
  ]
  if (failures.length > 0)
    blocks.push(
      table(
        [
          { header: 'id', value: (i: ItemOutcome) => i.id, priority: 1 },
          { header: 'error', value: (i) => `${i.error?.code}: ${i.error?.message}`, maxWidth: 90 },
        ],
        failures,
      ),
    )
  return blocks
}

/** What a purge will delete. */
export function purgePlanView(plan: PurgePlan): Block[] {
  return [
    { text: `purge ${plan.total} record(s) last changed before ${iso(plan.olderThan)}:`, tone: 'bold' },
    table(
      [
        { header: 'kind', value: (l: PurgePlan['lanes'][number]) => l.kind },
        { header: 'state', value: (l) => l.state },
        { header: 'records', value: (l) => `${l.countCapped ? 'at least ' : ''}${l.count}`, align: 'right' },
      ],
      plan.lanes,
    ),
  ]
}

/** The records a purge keeps because their content is sealed under a key not given, if any. */
export function sealedKeptView(sealed: PurgePlan['sealed']): Block[] {
  if (sealed.count === 0) return []
  const keys = sealed.keys.map((key) => `key ${key}`).join(', ')
  return [
    {
      text: `${sealed.count} record(s) old enough are kept: their content is sealed under ${keys}, which the keys given (--keys or BOTMESH_ENCRYPTION_KEYS) do not open`,
      tone: 'yellow',
    },
  ]
}
