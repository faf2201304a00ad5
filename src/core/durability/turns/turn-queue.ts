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
 * Whether the queue gave up the place of a message on its first run: it joined the queue before it
 * was journaled, so only a drop as never journaled (or a full queue) leaves it out. Later runs (a
 * retry, a replay) queue again in their createdAt place.
 */
export function isGivenUp(current: Versioned<TurnRecord> | undefined, message: HeldRecord<'inbox'>): boolean {
  const queue = current?.record.queue ?? []
  return message.record.attempts === 1 && queue.length < LIMITS.turnQueueMax && !queue.some((entry) => entry.id === message.id)
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
