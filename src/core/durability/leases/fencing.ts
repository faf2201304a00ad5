/**
 * The fencing token, one rule for every record a lease guards (an inbound run, a send, a chat's
 * turn, the transport session): each claim takes the next token, so the writes of whoever held it
 * before are refused from then on.
 */

/** What a claim reads of the record it takes: the token of its latest claim (none before the first). */
export interface Fenced {
  /** The token of the latest claim (0 before the first). */
  fencingToken: number
}

/** The token a claim of `record` takes: one more than the latest claim's. */
export function nextToken(record: Fenced | undefined): number {
  return (record?.fencingToken ?? 0) + 1
}
