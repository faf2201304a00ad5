/**
 * Dead letters grouped by what went wrong: the error's code and the shape of its message (numbers,
 * ids and quoted values replaced by placeholders), so a thousand "rate limited, retry in 37s" are
 * one line with a count, when it was first and last seen, and a sample record to `show`.
 */
import type { Journal } from '../core/durability/journal/backend.js'
import type { ChannelErrorCode, ErrorCode } from '../core/errors/errors.js'
import { errorGroupId, messageShape } from './error-shape.js'
import { lanesOf, scan, type RecordFilters, type WorkKind } from './records.js'

/** Limits of grouping, named with units last. */
export const GROUP_LIMITS = {
  /** Dead letters read to build the groups; past it the groups are marked partial. */
  scanMax: 100_000,
  /** Groups reported, largest first. */
  groupsMax: 200,
} as const

/** One group of dead letters. */
export interface ErrorGroup {
  /** A short stable id of the group (kind, code and shape): pass it as --error-group. */
  group: string
  kind: WorkKind
  /** The error's code, or null when it had none. */
  code: ErrorCode | ChannelErrorCode | null
  /** The message with its variable parts replaced ("rate limited, retry in <n>s"). */
  shape: string
  count: number
  /** When the first and the last of them failed (ms since the epoch). */
  firstSeenAt: number
  lastSeenAt: number
  /** One record of the group, to `show`, and its message as it was. */
  sample: { id: string; message: string }
}

/** The groups, largest first, and how much was read to build them. */
export interface ErrorGroups {
  groups: ErrorGroup[]
  scanned: number
  /** True when the scan bound was reached: the counts cover only the first `scanned` dead letters. */
  scanLimited: boolean
}

/** Groups the dead letters of `kinds` that pass the filters, reading at most `scanMax` of them. */
export async function groupDeadLetters(
  journal: Journal,
  kinds: readonly WorkKind[],
  filters: RecordFilters,
  scanMax: number = GROUP_LIMITS.scanMax,
): Promise<ErrorGroups> {
  const groups = new Map<string, ErrorGroup>()
  let scanned = 0
  for await (const { summary } of scan(journal, lanesOf(kinds, ['dead']), filters)) {
    if (++scanned > scanMax) return finish(groups, scanned - 1, true)
    if (!summary) continue
    const error = summary.lastError
    const group = errorGroupId(summary.kind, error)
    const at = error?.at ?? summary.updatedAt
    const found = groups.get(group)
    if (found) {
      found.count++
      found.firstSeenAt = Math.min(found.firstSeenAt, at)
      found.lastSeenAt = Math.max(found.lastSeenAt, at)
      continue
    }
    groups.set(group, {
      group,
      kind: summary.kind,
      code: error?.code ?? null,
      shape: error ? messageShape(error.message) : '(no error recorded)',
      count: 1,
      firstSeenAt: at,
      lastSeenAt: at,
      sample: { id: summary.id, message: error?.message ?? '' },
    })
  }
  return finish(groups, scanned, false)
}

function finish(groups: Map<string, ErrorGroup>, scanned: number, scanLimited: boolean): ErrorGroups {
  const sorted = [...groups.values()].sort((a, b) => b.count - a.count || b.lastSeenAt - a.lastSeenAt)
  return { groups: sorted.slice(0, GROUP_LIMITS.groupsMax), scanned, scanLimited }
}
