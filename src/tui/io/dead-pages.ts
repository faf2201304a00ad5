/**
 * One page of a dead-letter lane, read with the records service's `scan` (the state-time index in
 * time order, from a cursor). Without a filter a page reads what it shows; with one it reads on
 * until the page is full or `filterScanMax` records were read, and says when it stopped early,
 * so a filter that matches nothing never turns a refresh into a scan of the journal. The filter
 * matches a record's id, chat and error, and what its content says (`--search`'s text).
 */
import type { Journal } from '../../core/durability/journal/backend.js'
import { recordText, scan, type Cursor, type RecordSummary, type WorkKind } from '../../operator/records.js'
import { DASHBOARD_LIMITS } from '../limits.js'
import { matchesText } from './text-filter.js'

/** One page of dead letters (or unknown sends). */
export interface DeadPage {
  records: RecordSummary[]
  /** Where the next page starts; null when this page reached the end of the lane. */
  next: Cursor | null
  /** Records read to fill the page. */
  scanned: number
  /** The filter's read bound was reached before the page filled: more may match after `next`. */
  scanLimited: boolean
}

/** Reads the page of `lane` that starts after `from`, keeping records that match `filter`. */
export async function readDeadPage(
  journal: Journal,
  lane: { kind: WorkKind; state: string },
  filter: string,
  from?: Cursor,
): Promise<DeadPage> {
  const limit = DASHBOARD_LIMITS.deadPageSize
  const records: RecordSummary[] = []
  let scanned = 0
  let last: Cursor | undefined
  for await (const { summary, position, record } of scan(journal, [lane], {}, from)) {
    const match = summary !== undefined && matchesRecord(filter, summary, recordText(lane.kind, record))
    // One match past a full page proves there is a next page (the index is read in batches anyway).
    if (match && records.length >= limit) return { records, next: last!, scanned, scanLimited: false }
    scanned++
    last = position
    // SQLite answers synchronously: without a pause a long filtered read would hold the keys back.
    if (filter !== '' && scanned % DASHBOARD_LIMITS.filterYieldEvery === 0) await new Promise((resolve) => setImmediate(resolve))
    if (match) records.push(summary)
    if (scanned >= DASHBOARD_LIMITS.filterScanMax) return { records, next: position, scanned, scanLimited: true }
  }
  return { records, next: null, scanned, scanLimited: false }
}

/**
 * Whether a record matches the text filter: its id, chat, last error's code or message, or what
 * its content says (`content`: record-text.ts, the same text `--search` searches).
 */
export function matchesRecord(filter: string, record: RecordSummary, content: readonly string[] = []): boolean {
  return matchesText(filter, [record.id, record.chatId, record.lastError?.code, record.lastError?.message, ...content])
}
