/**
 * What the destructive and bulk commands share: choosing the records to touch (named ids, or every
 * record of some states that passes the filters), a plan to show before anything changes (a count
 * and a sample), and applying one operation per record at a bounded rate, each a compare-and-set
 * whose failure is reported per record and never stops the rest.
 */
import type { Journal } from '../core/durability/journal/backend.js'
import type { InboxRecord, OutboxRecord } from '../core/durability/journal/records.js'
import { BotmeshError, InvalidStateError, RecordNotFoundError } from '../core/errors/errors.js'
import { RecordInOtherLaneError } from './errors.js'
import { isFiltered, scan, summarize, type Lane, type RecordFilters, type RecordSummary, type WorkKind } from './records.js'

/** Limits of bulk work, named with units last. */
export const BULK_LIMITS = {
  /** Records one bulk command touches at most (its --limit may ask for fewer). */
  recordsMax: 1_000_000,
  /** Records a plan shows as its sample. */
  sampleMax: 5,
} as const

/** What a command will touch. */
export interface Plan {
  kind: WorkKind
  /** Every id it will touch, in order. */
  ids: string[]
  /** How many records match in all (may exceed `ids` when --limit cut them). */
  matched: number
  sample: RecordSummary[]
}

/** One record's outcome. */
export interface ItemOutcome {
  id: string
  ok: boolean
  /** Records changed for it (a retried send re-queues the later parts that died with it). */
  changed?: string[]
  error?: { code: string; message: string }
}

/** The outcome of a bulk or destructive command. */
export interface BulkOutcome {
  action: string
  kind: WorkKind
  dryRun: boolean
  matched: number
  /** Records it tried (0 on a dry run). */
  attempted: number
  succeeded: number
  failed: number
  sample: RecordSummary[]
  items: ItemOutcome[]
  reason: string | null
  /** What the operator should know although every record changed (nothing running will pick them up). */
  warnings: string[]
}

/**
 * The records named on the command line; every one must exist and be in one of `states`, or nothing
 * is touched. With `suggestOther` (replay, retry), a missing id the other lane holds (an inbox id
 * given to retry) is named as such, with the command that takes it.
 */
export async function planNamed(
  journal: Journal,
  kind: WorkKind,
  ids: readonly string[],
  states: readonly string[],
  suggestOther = false,
): Promise<Plan> {
  const unique = [...new Set(ids)]
  const found = await journal.read(kind, unique)
  const missing = unique.filter((_, index) => !found[index])
  if (missing.length > 0) {
    const other = suggestOther ? await journal.read(kind === 'inbox' ? 'outbox' : 'inbox', missing) : []
    const elsewhere = missing.filter((_, index) => other[index])
    if (elsewhere.length > 0) throw new RecordInOtherLaneError(kind, missing, elsewhere)
    throw new RecordNotFoundError(kind, missing.join('", "'))
  }
  for (const [index, entry] of found.entries()) {
    const record = entry!.record as InboxRecord | OutboxRecord
    if (!states.includes(record.state)) throw new InvalidStateError(kind, unique[index]!, record.state, states)
  }
  const summaries = found.map((entry) => summarize(kind, entry!.record as InboxRecord | OutboxRecord))
  return { kind, ids: unique, matched: unique.length, sample: summaries.slice(0, BULK_LIMITS.sampleMax) }
}

/** Every record of the lanes that passes the filters, up to `limit`. */
export async function planFiltered(journal: Journal, lanes: readonly Lane[], filters: RecordFilters, limit?: number): Promise<Plan> {
  const bound = Math.min(limit ?? BULK_LIMITS.recordsMax, BULK_LIMITS.recordsMax)
  const ids: string[] = []
  const sample: RecordSummary[] = []
  let matched = 0
  const unfiltered = !isFiltered(filters)
  for await (const { summary } of scan(journal, lanes, filters)) {
    if (!summary) continue
    matched++
    if (ids.length < bound) ids.push(summary.id)
    if (sample.length < BULK_LIMITS.sampleMax) sample.push(summary)
    if (ids.length >= bound) break
  }
  // Without filters the index counts tell how many match in all, without reading them.
  if (unfiltered && ids.length >= bound) matched = await countLanes(journal, lanes)
  return { kind: lanes[0]!.kind, ids, matched, sample }
}

async function countLanes(journal: Journal, lanes: readonly Lane[]): Promise<number> {
  let total = 0
  for (const kind of new Set(lanes.map((lane) => lane.kind))) {
    const counts = await journal.count(kind)
    for (const lane of lanes) if (lane.kind === kind) total += counts[lane.state] ?? 0
  }
  return total
}

/** How fast and how much a bulk command may go. */
export interface Pace {
  /** Operations per second at most. @default unbounded */
  rate?: number
  /** Called after each record. */
  onProgress?(done: number, total: number, id: string): void
  /** Stops before the next record once aborted. */
  signal?: AbortSignal
}

/** Applies `operation` to each id in order at the pace; each failure is recorded, not thrown. */
export async function applyEach(
  ids: readonly string[],
  operation: (id: string) => Promise<string[]>,
  pace: Pace = {},
): Promise<ItemOutcome[]> {
  const outcomes: ItemOutcome[] = []
  const started = Date.now()
  for (const [index, id] of ids.entries()) {
    if (pace.signal?.aborted) break
    if (pace.rate) {
      const due = started + (index * 1_000) / pace.rate
      if (due > Date.now()) await new Promise((resolve) => setTimeout(resolve, due - Date.now()))
    }
    try {
      outcomes.push({ id, ok: true, changed: await operation(id) })
    } catch (error) {
      if (!(error instanceof BotmeshError)) throw error
      outcomes.push({ id, ok: false, error: { code: error.code, message: error.message } })
    }
    pace.onProgress?.(index + 1, ids.length, id)
  }
  return outcomes
}

/** The outcome of a plan: the items applied (none when it was only looked at). */
export function outcomeOf(
  action: string,
  plan: Plan,
  items: ItemOutcome[],
  options: { reason?: string; dryRun?: boolean; warnings?: string[] },
): BulkOutcome {
  const done = items
  const reason = options.reason
  return {
    action,
    kind: plan.kind,
    dryRun: options.dryRun ?? false,
    matched: plan.matched,
    attempted: done.length,
    succeeded: done.filter((item) => item.ok).length,
    failed: done.filter((item) => !item.ok).length,
    sample: plan.sample,
    items: done,
    reason: reason ?? null,
    warnings: options.warnings ?? [],
  }
}
