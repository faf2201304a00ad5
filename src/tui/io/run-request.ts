/**
 * Runs an operator's confirmed request through the CLI's services, exactly as `botmesh replay`,
 * `retry` and `discard` do: plan (named records must exist in a state the verb accepts, or a whole
 * state is read from the index), then apply one compare-and-set per record with an audit entry.
 * A record a running bot changed meanwhile fails alone and is reported; nothing is overwritten.
 */
import type { Journal } from '../../core/durability/journal/backend.js'
import type { OperatorChange } from '../../core/durability/operations/operations.js'
import type { ItemOutcome, Pace, Plan } from '../../operator/bulk.js'
import { applyDiscard, planDiscard } from '../../operator/discard.js'
import { applyReplay, planReplay, type Selection } from '../../operator/replay.js'
import { applyRetry, planRetry } from '../../operator/retry.js'
import type { OperatorRequest } from '../state/requests.js'

/** What a request did. */
export interface RequestOutcome {
  request: OperatorRequest
  attempted: number
  succeeded: number
  failed: number
  /** The first records it changed (a retried send re-queues the later parts that died with it). */
  changed: string[]
  /** The first failure, when some record failed. */
  firstError: { id: string; code: string; message: string } | undefined
  /** Stopped by the operator before every record was tried. */
  cancelled: boolean
}

/** The reason kept on each changed record when the operator typed none (the audit entry says who and when). */
export const DASHBOARD_REASON = 'botmesh dashboard'

/** Plans and applies `request` in `journal`; `now` is the backend's clock. */
export async function runRequest(
  journal: Journal,
  request: OperatorRequest,
  options: { now: () => Promise<number>; pace?: Pace },
): Promise<RequestOutcome> {
  const selection: Selection = 'ids' in request.target ? { ids: request.target.ids } : { states: [request.target.state], filters: {} }
  const change: OperatorChange = { reason: request.reason ?? DASHBOARD_REASON, at: await options.now() }
  let plan: Plan
  let items: ItemOutcome[]
  switch (request.verb) {
    case 'replay':
      plan = await planReplay(journal, selection)
      items = await applyReplay(journal, plan, change, options.pace)
      break
    case 'retry':
      plan = await planRetry(journal, selection)
      items = await applyRetry(journal, plan, change, options.pace)
      break
    case 'discard':
      plan = await planDiscard(journal, selection)
      items = await applyDiscard(journal, plan, options.now, options.pace)
      break
  }
  const failed = items.filter((item) => !item.ok)
  const first = failed[0]
  return {
    request,
    attempted: items.length,
    succeeded: items.length - failed.length,
    failed: failed.length,
    changed: items.flatMap((item) => item.changed ?? []).slice(0, 5),
    firstError: first?.error ? { id: first.id, ...first.error } : undefined,
    cancelled: items.length < plan.ids.length,
  }
}
