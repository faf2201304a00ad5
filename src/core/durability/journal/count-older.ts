/**
 * `countOlder` for a store that does not count by itself: pages through the state-time index, so
 * the cost grows with the count (the bound `limit` keeps it finite).
 */
import { LIMITS } from '../limits.js'

/** A position in the state-time index. */
export interface IndexPosition {
  /** The entry's state time, in ms since the epoch (the index's first sort key). */
  stateTime: number
  /** The entry's key (orders entries with the same state time). */
  key: string
}

/**
 * Counts, up to `limit`, what `page` lists: `page(after, max)` gives at most `max` positions after
 * `after` (from the start without it), in index order, of the entries being counted.
 */
export async function countByPaging(
  page: (after: IndexPosition | undefined, max: number) => Promise<readonly IndexPosition[]>,
  limit: number,
): Promise<number> {
  let counted = 0
  let after: IndexPosition | undefined
  while (counted < limit) {
    const max = Math.min(LIMITS.countPageMax, limit - counted)
    const found = await page(after, max)
    counted += found.length
    if (found.length < max) break
    after = found.at(-1)!
  }
  return counted
}
