/**
 * Listing records: one or more lanes (a kind and a state, read from the state-time index in time
 * order), filtered by chat, age and error text, in pages. A page resumes from an opaque cursor,
 * so a million dead letters are paged through without a full scan, and a filter that matches
 * rarely stops after a bounded number of records instead of reading the whole journal.
 */
import type { Journal } from '../core/durability/journal/backend.js'
import {
  INBOX_STATES,
  OUTBOX_STATES,
  recordIndex,
  recordKey,
  type ErrorInfo,
  type InboxRecord,
  type Lease,
  type OutboxRecord,
} from '../core/durability/journal/records.js'
import { holdsText } from '../core/durability/journal/record-text.js'

/** What text a record holds (what `--search` and the dashboard's filter look in). */
export { recordText } from '../core/durability/journal/record-text.js'
import { UsageError } from './errors.js'
import { errorGroupId } from './error-shape.js'

export type WorkKind = 'inbox' | 'outbox'

/** One kind and one state: a run of the state-time index. */
export interface Lane {
  kind: WorkKind
  state: string
}

/** Filters applied to each record read. */
export interface RecordFilters {
  /** Only this chat. */
  chat?: string
  /** Only records updated at or after this time (ms since the epoch). */
  since?: number
  /** Only records whose last error's message or code contains this (case-insensitive). */
  error?: string
  /** Only records whose last error has exactly this code (case-insensitive). */
  errorCode?: string
  /** Only records in this group of `dlq list --group-by error`. */
  errorGroup?: string
  /**
   * Only records whose content holds this text, ignoring case (the message text, captions, button
   * labels, a send's content: record-text.ts). Searched by the backend: in the database on SQLite
   * and PostgreSQL.
   */
  search?: string
}

/** Where a page starts: after this position of this lane. */
export interface Cursor {
  lane: number
  stateTime: number
  key: string
}

/** What a list shows of a record (`show` gives the whole record). */
export interface RecordSummary {
  kind: WorkKind
  /** The inbox record id, or the outbox key. */
  id: string
  state: string
  chatId: string
  attempts: number
  createdAt: number
  updatedAt: number
  nextAttemptAt: number | null
  lease: Lease | null
  lastError: ErrorInfo | null
  /** Outbox only: the earlier part this one waits behind. */
  previousPart?: string | null
  /** Outbox only: the provider's id of the sent message. */
  providerMessageId?: string | null
}

/** One page. */
export interface RecordPage {
  records: RecordSummary[]
  /** Pass as --after to get the next page; null when there is no more. */
  next: string | null
  /** Records read to fill this page (more than shown when filters skip some). */
  scanned: number
  /** True when the scan bound was reached before the page filled: more may match after `next`. */
  scanLimited: boolean
  /** With a search: records it could not read, their content sealed under a key not given. */
  unsearched?: number
}

/** Limits of listing, named with units last. */
export const LIST_LIMITS = {
  /** Records a page shows by default. */
  pageDefault: 50,
  /** The largest page a command may ask for. */
  pageMax: 10_000,
  /** Records read from the index per round trip. */
  readBatch: 500,
  /** Records one page may read while filters skip them, before it stops and hands back a cursor. */
  scanMax: 100_000,
  /** Characters a --search text may hold. */
  searchLengthMax: 1_000,
} as const

/**
 * The retry queue: what waits for its next attempt. `failed` backs off until its next attempt;
 * `pending` is due (re-queued by an operator, enqueued, or a later part) and overdue when no bot sweeps.
 */
export const RETRY_QUEUE_STATES = ['failed', 'pending'] as const

/** The lanes of every state of a kind, or of the states given. */
export function lanesOf(kinds: readonly WorkKind[], states?: readonly string[]): Lane[] {
  const lanes: Lane[] = []
  for (const kind of kinds) {
    const known: readonly string[] = kind === 'inbox' ? INBOX_STATES : OUTBOX_STATES
    for (const state of states ?? known) if (known.includes(state)) lanes.push({ kind, state })
  }
  if (lanes.length === 0) {
    throw new UsageError(
      `no such state for ${kinds.join(' or ')}: ${states?.join(', ')} (inbox: ${INBOX_STATES.join(', ')}; outbox: ${OUTBOX_STATES.join(', ')})`,
    )
  }
  return lanes
}

/** One page of the lanes' records that pass the filters. */
export async function listRecords(
  journal: Journal,
  lanes: readonly Lane[],
  filters: RecordFilters,
  options: { limit?: number; after?: string } = {},
): Promise<RecordPage> {
  const limit = options.limit ?? LIST_LIMITS.pageDefault
  const records: RecordSummary[] = []
  let scanned = 0
  // Unfiltered, a page reads what it shows (plus one, to know whether there is more); filtered, it reads ahead.
  const batch = isFiltered(filters) ? LIST_LIMITS.readBatch : Math.min(LIST_LIMITS.readBatch, limit + 1)
  const found = scan(journal, lanes, filters, options.after ? decodeCursor(options.after, lanes.length) : undefined, batch)
  let last: Cursor | undefined
  for await (const { summary, position } of found) {
    if (records.length >= limit) {
      // The page is full and another record follows (shown or not): the page ends at the last one shown.
      return { records, next: encodeCursor(last!), scanned, scanLimited: false }
    }
    scanned++
    last = position
    if (summary) records.push(summary)
    if (scanned >= LIST_LIMITS.scanMax) return { records, next: encodeCursor(position), scanned, scanLimited: true }
  }
  return { records, next: null, scanned, scanLimited: false }
}

/**
 * Every record of the lanes in order, each with its position and its summary when it passes the
 * filters (undefined when it does not). The caller bounds how far it reads.
 */
export async function* scan(
  journal: Journal,
  lanes: readonly Lane[],
  filters: RecordFilters,
  from?: Cursor,
  batch: number = LIST_LIMITS.readBatch,
): AsyncGenerator<{ summary: RecordSummary | undefined; position: Cursor; record: InboxRecord | OutboxRecord }> {
  for (let lane = from?.lane ?? 0; lane < lanes.length; lane++) {
    const { kind, state } = lanes[lane]!
    let after: { stateTime: number; key: string } | undefined =
      from && from.lane === lane ? { stateTime: from.stateTime, key: from.key } : undefined
    // The index is in time order: start just before --since instead of reading older records.
    if (!after && filters.since !== undefined) after = { stateTime: filters.since - 1, key: '' }
    for (;;) {
      const page = await journal.list(kind, { state, after, limit: batch, ...(filters.search && { search: filters.search }) })
      for (const found of page) {
        const record = found.record as InboxRecord | OutboxRecord
        const { stateTime } = recordIndex(kind, record)
        const position = { lane, stateTime, key: recordKey(kind, record) }
        after = { stateTime, key: position.key }
        yield { summary: matches(kind, record, filters) ? summarize(kind, record) : undefined, position, record }
      }
      if (page.length < batch) break
    }
  }
}

/** The summary of a record. */
export function summarize(kind: WorkKind, record: InboxRecord | OutboxRecord): RecordSummary {
  const base = {
    kind,
    id: recordKey(kind, record),
    state: record.state,
    chatId: record.chatId,
    attempts: record.attempts,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    nextAttemptAt: record.nextAttemptAt,
    lease: record.lease,
    lastError: record.lastError,
  }
  if (kind === 'inbox') return base
  const outbox = record as OutboxRecord
  return { ...base, previousPart: outbox.previousPart, providerMessageId: outbox.providerMessageId }
}

/** Whether any filter is set. */
export function isFiltered(filters: RecordFilters): boolean {
  return (
    filters.chat !== undefined ||
    filters.since !== undefined ||
    filters.error !== undefined ||
    filters.errorCode !== undefined ||
    filters.errorGroup !== undefined ||
    Boolean(filters.search)
  )
}

function matches(kind: WorkKind, record: InboxRecord | OutboxRecord, filters: RecordFilters): boolean {
  if (filters.chat !== undefined && record.chatId !== filters.chat) return false
  if (filters.since !== undefined && record.updatedAt < filters.since) return false
  if (filters.error !== undefined) {
    const needle = filters.error.toLowerCase()
    const error = record.lastError
    if (!error || !`${error.message} ${error.code ?? ''} ${error.name ?? ''}`.toLowerCase().includes(needle)) return false
  }
  if (filters.errorCode !== undefined && record.lastError?.code?.toLowerCase() !== filters.errorCode.toLowerCase()) return false
  if (filters.errorGroup !== undefined && errorGroupId(kind, record.lastError) !== filters.errorGroup.toLowerCase()) return false
  if (filters.search && !holdsText(kind, record, filters.search)) return false
  return true
}

function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify([cursor.lane, cursor.stateTime, cursor.key])).toString('base64url')
}

function decodeCursor(text: string, lanes: number): Cursor {
  try {
    const [lane, stateTime, key] = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as [unknown, unknown, unknown]
    if (
      Number.isInteger(lane) &&
      (lane as number) >= 0 &&
      (lane as number) < lanes &&
      typeof stateTime === 'number' &&
      typeof key === 'string'
    ) {
      return { lane: lane as number, stateTime, key }
    }
  } catch {
    // Reported below.
  }
  throw new UsageError(
    `--after ${JSON.stringify(text)} is not a cursor of this listing (use the "next" value a page printed, with the same filters)`,
  )
}
