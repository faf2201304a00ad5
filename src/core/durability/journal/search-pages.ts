/**
 * A search's page: read the lane on from its cursor and keep what a record's content says to keep,
 * until the page is full or the lane ends. The journals over a store that cannot search (or may
 * return more than matches) and the sealed journal page through it, so a short page still means
 * the lane's end, as it does unsearched.
 */
import type { JournalListQuery, Versioned } from './backend.js'
import { recordIndex, recordKey, type RecordKind, type RecordOf } from './records.js'
import { hasSealedContent, holdsText } from './record-text.js'

/** Records read per round trip while a search skips records, at least. */
export const SEARCH_READ_MIN = 100

/** What a search keeps of a record read: the record as given, or undefined to pass over it. */
export type SearchPick<K extends RecordKind> = (found: Versioned<RecordOf[K]>) => Versioned<RecordOf[K]> | undefined

/** One page of `query.search`: `read` pages through the lane, `pick` keeps what matches. */
export async function searchPage<K extends RecordKind>(
  kind: K,
  query: JournalListQuery,
  read: (query: JournalListQuery) => Promise<Versioned<RecordOf[K]>[]>,
  pick: SearchPick<K> = holdingOrSealed(kind, query.search ?? ''),
): Promise<Versioned<RecordOf[K]>[]> {
  const out: Versioned<RecordOf[K]>[] = []
  if (query.limit <= 0) return out
  let after = query.after
  for (;;) {
    const ask = Math.max(query.limit - out.length, SEARCH_READ_MIN)
    const page = await read({ ...query, after, limit: ask })
    for (const found of page) {
      const kept = pick(found)
      if (kept) out.push(kept)
      if (out.length >= query.limit) return out
    }
    if (page.length < ask) return out
    const last = page.at(-1)!.record
    after = { stateTime: recordIndex(kind, last).stateTime, key: recordKey(kind, last) }
  }
}

/** The journal's own rule: records whose content holds the text, and records whose content is sealed (for the sealed journal to judge). */
export function holdingOrSealed<K extends RecordKind>(kind: K, text: string): SearchPick<K> {
  return (found) => (holdsText(kind, found.record, text) || hasSealedContent(kind, found.record) ? found : undefined)
}
