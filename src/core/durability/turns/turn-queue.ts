/**
 * The queue of a chat's turn record (records.ts TurnRecord), kept apart from the turn's claim and
 * lease (chat-turns.ts): where a message goes in it, and whether it has lost its place.
 */
import type { Versioned } from '../journal/backend.js'
import type { HeldRecord } from '../leases/held-record.js'
import { LIMITS } from '../limits.js'
import type { TurnRecord } from '../journal/records.js'

/** The inbox states of a message that still needs (or holds) its chat's turn. */
export const WAITING_STATES = new Set(['pending', 'processing'])

/**
 * Whether the queue gave up the place of a message: the turn record names it (given up as never
 * journaled: its replica stalled or died between queueing and journaling it; journaled after all,
 * by a late write or a transaction committed late, it arrives anew at the end whoever runs it, its
 * own replica or another's sweeper);
 * or, on its first run, it is missing from the queue it joined before it was journaled (a drop the
 * record no longer names, or a full queue). Later runs (a retry, a replay) queue again in their
 * createdAt place.
 */
export function isGivenUp(current: Versioned<TurnRecord> | undefined, message: HeldRecord<'inbox'>): boolean {
  if (current?.record.gaveUp?.includes(message.id)) return true
  const queue = current?.record.queue ?? []
  return message.record.attempts === 1 && queue.length < LIMITS.turnQueueMax && !queue.some((entry) => entry.id === message.id)
}

/** The turn record's given-up ids with `id` added (the oldest dropped past LIMITS.turnGaveUpMax). */
export function withGivenUp(record: TurnRecord, id: string): string[] {
  return [...(record.gaveUp ?? []).filter((given) => given !== id), id].slice(-LIMITS.turnGaveUpMax)
}

/** The turn record without `id` among its given-up ids (the same record when it is not there). */
export function arrivedAgain(record: TurnRecord, id: string): TurnRecord {
  if (!record.gaveUp?.includes(id)) return record
  const gaveUp = record.gaveUp.filter((given) => given !== id)
  const { gaveUp: _, ...rest } = record
  return gaveUp.length > 0 ? { ...rest, gaveUp } : rest
}

/** The queue with `entry` in its (createdAt, id) place; the same array when it is there already. */
export function withEntry(queue: TurnRecord['queue'], entry: { id: string; createdAt: number }): TurnRecord['queue'] {
  if (queue.some((queued) => queued.id === entry.id)) return queue
  if (queue.length >= LIMITS.turnQueueMax) return queue
  const at = queue.findIndex(
    (queued) => queued.createdAt > entry.createdAt || (queued.createdAt === entry.createdAt && queued.id > entry.id),
  )
  return at < 0 ? [...queue, entry] : [...queue.slice(0, at), entry, ...queue.slice(at)]
}
