/**
 * A message's place in its chat's turn queue (durability.coordination), from its arrival to its
 * turn: the place it takes before it is journaled (that place is its createdAt, so the queue's order
 * and the journal's arrival order are one), the place a queue gives up when a message was never
 * journaled, and the place a message journaled late takes anew.
 */
import { SEQ_PER_MS } from './chat-order.js'
import type { DurabilityEngine } from '../engine.js'
import type { HeldRecord } from '../leases/held-record.js'
import { emptyTurn, type FoundTurn, type TurnRecords } from './turn-records.js'
import { WAITING_STATES, withEntry } from './turn-queue.js'

export class QueuePlaces {
  constructor(
    private readonly engine: DurabilityEngine,
    private readonly records: TurnRecords,
    private readonly leaseMs: number,
  ) {}

  /**
   * Queues a message that is about to be journaled at the end of its chat's turn queue, and returns
   * its arrival time: never before the last message queued, so the queue's order (the order in
   * which the journal took the messages, whichever replica they landed on) and the inbox records'
   * createdAt order are one and the same.
   */
  async join(chatId: string, id: string): Promise<number> {
    let current = await this.records.seenOrRead(chatId)
    for (;;) {
      const record = current?.record ?? emptyTurn(chatId)
      const queued = record.queue.find((entry) => entry.id === id)
      if (queued) return queued.createdAt
      const now = this.engine.now()
      const createdAt = Math.max(now, (record.queue.at(-1)?.createdAt ?? 0) + 1)
      const next = { ...record, queue: withEntry(record.queue, { id, createdAt }), updatedAt: now }
      if (next.queue === record.queue) return createdAt
      const written = await this.records.write('turn.queue', current, next)
      if (written.ok) return createdAt
      current = written.current
    }
  }

  /**
   * Makes sure a message just journaled holds its place before its channel hears it was taken, so
   * every message acknowledged after it queues behind it. Journaled within half a turn lease of its
   * arrival, it does: a place is given up only a turn lease after it, by a replica that found no
   * record and looked at the clock before it looked (`hasLeft`). Later (its replica stalled between
   * queueing and journaling it), the queue is written again, so a give-up decided meanwhile fails its
   * compare-and-set, and a place already given up is taken anew at the end of the queue.
   */
  async keep(message: HeldRecord<'inbox'>): Promise<void> {
    const { chatId, id, createdAt } = message.record
    if (this.engine.now() < createdAt + this.leaseMs / 2) return
    let current = await this.records.read(chatId)
    for (;;) {
      const record = current?.record ?? emptyTurn(chatId)
      const place = record.queue.find((entry) => entry.id === id) ?? { id, createdAt: this.#atTheEnd(current) }
      const next = { ...record, queue: withEntry(record.queue, place), updatedAt: this.engine.now() }
      // A full queue takes no one (LIMITS.turnQueueMax): the message runs in its createdAt place.
      if (!next.queue.includes(place)) return
      const written = await this.records.write('turn.queue', current, next)
      current = written.current
      if (!written.ok) continue
      if (place.createdAt !== createdAt) await this.#moveArrival(message, place.createdAt)
      return
    }
  }

  /**
   * Whether a queued message no longer waits for its turn, and why: `'settled'` (done, failed: it
   * queues again on its retry, dead); or `'never journaled'` (its replica died or stalled between
   * queueing and journaling it) once a turn lease has passed since it was queued. The clock is read
   * before the record: a message journaled after that look is one `keep` finds given up or keeps,
   * and the turn record names it (TurnRecord.gaveUp) for whoever runs it later.
   */
  async hasLeft(entry: { id: string; createdAt: number }): Promise<'settled' | 'never journaled' | undefined> {
    const now = this.engine.now()
    const [found] = await this.engine.journal.read('inbox', [entry.id])
    if (!found) return entry.createdAt + this.leaseMs <= now ? 'never journaled' : undefined
    return WAITING_STATES.has(found.record.state) ? undefined : 'settled'
  }

  /**
   * A message whose place the queue gave up while it waited arrives now: after the last message
   * queued, or in the place it took anew at its admission (`keep`), so the journal's arrival order
   * stays the order the chat's handlers run in. False when its lease was lost meanwhile.
   */
  arriveAgain(current: FoundTurn, message: HeldRecord<'inbox'>): Promise<boolean> {
    const taken = current?.record.queue.find((entry) => entry.id === message.id)
    return this.#moveArrival(message, taken?.createdAt ?? this.#atTheEnd(current))
  }

  /** The record's arrival (createdAt, and its seq with it) moved to `createdAt`. */
  async #moveArrival(message: HeldRecord<'inbox'>, createdAt: number): Promise<boolean> {
    // Its place taken anew at its admission and its arrival moved with it: nothing to move.
    if (createdAt === message.record.createdAt) return !message.lost
    const moved = await message.update('turn.requeue', (record) => ({
      ...record,
      createdAt,
      seq: this.engine.sequence.observe(createdAt * SEQ_PER_MS),
      updatedAt: this.engine.now(),
    }))
    if (moved)
      this.engine.events.warn(
        `durability: "${message.id}" was journaled after its chat's turn queue gave its place up (its replica stalled); it arrives now`,
      )
    return moved
  }

  #atTheEnd(current: FoundTurn): number {
    return Math.max(this.engine.now(), (current?.record.queue.at(-1)?.createdAt ?? 0) + 1)
  }
}
