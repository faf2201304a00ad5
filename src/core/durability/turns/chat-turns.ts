/**
 * Chat turns (`durability.coordination`): at most one handler of a chat runs at a time in the whole
 * deployment, in arrival order, wherever the messages land. Each chat has a turn record in the
 * journal (records.ts TurnRecord): its unfinished messages in (createdAt, id) order and the replica
 * holding the turn under a lease and a fencing token, claimed and released by compare-and-set like an
 * inbox record, so it works on every backend through the same journal writes. A dead or frozen
 * holder's turn passes on once its lease is over; its late writes fail their compare-and-set and are
 * counted in `staleLeases`.
 */
import { nextToken } from '../leases/fencing.js'
import { journalKey } from '../journal/journal-key.js'
import type { DurabilityEngine } from '../engine.js'
import type { HeldRecord } from '../leases/held-record.js'
import { LIMITS } from '../limits.js'
import { BackgroundLoop } from '../loop.js'
import type { TurnRecord } from '../journal/records.js'
import { arrivedAgain, isGivenUp, WAITING_STATES, withEntry, withGivenUp } from './turn-queue.js'
import { TurnWaiters } from './turn-waiters.js'
import { QueuePlaces } from './queue-places.js'
import { emptyTurn, TurnRecords, type FoundTurn } from './turn-records.js'

/** A turn this process holds for one inbox record. */
export interface HeldTurn {
  readonly chatId: string
  readonly inboxId: string
  readonly token: number
  /** The message's inbox record, held by this process: its state at the release says whether it leaves the queue. */
  readonly message: HeldRecord<'inbox'>
  /** Set once a write found another holder: the lease was over and the turn passed on. */
  lost: boolean
}

export class ChatTurns {
  readonly #records: TurnRecords
  readonly #places: QueuePlaces
  readonly #held = new Set<HeldTurn>()
  /** Local waiters per chat, woken when this process releases a turn of that chat. */
  readonly #waiters = new TurnWaiters()
  /** Chats whose turn record one waiter of this process is reading now (the others take its answer). */
  readonly #polling = new Set<string>()
  #stopping = false
  readonly #renewal: BackgroundLoop

  constructor(
    private readonly engine: DurabilityEngine,
    private readonly leaseMs: number,
  ) {
    this.#records = new TurnRecords(engine)
    this.#places = new QueuePlaces(engine, this.#records, leaseMs)
    const periodMs = Math.max(5, Math.floor(leaseMs / LIMITS.heartbeatsPerLease))
    this.#renewal = new BackgroundLoop(
      'turn-keeper',
      () => periodMs,
      () => this.#renew(),
      (error) => engine.events.error(error),
    )
  }

  /** The turns held by this process now, for the instance heartbeat. */
  heldChats(): string[] {
    return [...this.#held].filter((turn) => !turn.lost).map((turn) => turn.chatId)
  }

  /** Queues a message about to be journaled at the end of its chat's turn queue; its arrival time (queue-places.ts). */
  join(chatId: string, id: string): Promise<number> {
    return this.#places.join(chatId, id)
  }

  /** Makes sure a message just journaled holds its place before it is acknowledged (queue-places.ts). */
  keepPlace(message: HeldRecord<'inbox'>): Promise<void> {
    return this.#places.keep(message)
  }

  /**
   * Waits for the chat's turn of `message` (queued in arrival order meanwhile) and takes it. Undefined
   * when this process lost the message's own lease while waiting: its new holder takes the turn.
   */
  async take(message: HeldRecord<'inbox'>): Promise<HeldTurn | undefined> {
    const { chatId, id } = message.record
    let current = await this.#records.seenOrRead(chatId)
    let requeued = false
    for (let waitMs: number = LIMITS.turnWaitMinMs; ;) {
      // Lost, or its lease is over by our clock (this process was frozen or cut off): its new holder takes the turn.
      // Stopping: the message is left to its lease (a restart with this instanceId takes it back at once).
      if (this.#stopping || message.lost || (message.record.lease?.expiresAt ?? Infinity) <= this.engine.now()) return undefined
      if (!requeued && isGivenUp(current, message)) {
        // Checked at every step, not once: the queue may give the place up while this message waits
        // (its admission landed later than a turn lease after it joined). What this process remembers
        // may be older than its own join: only the journal's record says so.
        current = await this.#records.read(chatId)
        if (isGivenUp(current, message)) {
          if (!(await this.#places.arriveAgain(current, message))) return undefined
          requeued = true
        }
      }
      const step = await this.#nextStep(current, chatId, { id, createdAt: message.record.createdAt })
      if (step.write) {
        const written = await this.#records.write('turn.claim', current, step.write)
        current = written.current
        if (written.ok && step.taking) return this.#hold(chatId, message, step.write.fencingToken)
        if (!written.ok || step.again) continue
      }
      if (this.#polling.has(chatId) || this.heldChats().includes(chatId)) {
        // One look at the journal per chat and process: the others wait for it, or for the local release.
        await this.#waiters.wait(chatId, LIMITS.turnWaitMaxMs)
        current = this.#records.seen(chatId)
        continue
      }
      this.#polling.add(chatId)
      try {
        await this.#waiters.wait(chatId, waitMs)
        waitMs = Math.min(waitMs * 2, LIMITS.turnWaitMaxMs)
        current = await this.#records.read(chatId)
      } finally {
        this.#polling.delete(chatId)
        this.#waiters.wake(chatId)
      }
    }
  }

  /**
   * Gives the turn back. The message leaves the queue only when its run settled it here (done, or
   * failed and queued again on its retry, or dead). A run that ended with the message unfinished (its
   * lease lapsed while this process was frozen or starved, and its completion was refused; or it was
   * left to its lease) keeps it at the head: the chat's later messages wait until it is claimed
   * again (by the sweeper, on any replica) and run, instead of overtaking it.
   */
  async release(turn: HeldTurn): Promise<void> {
    this.#held.delete(turn)
    const settled = !turn.message.lost && !WAITING_STATES.has(turn.message.record.state)
    try {
      const released = await this.#update(turn, 'turn.release', (record) => ({
        ...record,
        queue: settled ? record.queue.filter((entry) => entry.id !== turn.inboxId) : record.queue,
        holder: null,
      }))
      if (!released) this.engine.metrics.increment('staleLeases')
    } finally {
      this.#waiters.wake(turn.chatId)
    }
  }

  /** Messages still waiting for a turn stop waiting (the bot is stopping); held turns are kept until released. */
  abandonWaits(): void {
    this.#stopping = true
    this.#waiters.wakeAll()
  }

  async stop(): Promise<void> {
    this.abandonWaits()
    await this.#renewal.stop()
  }

  /** What to write next: queue the message, take the turn, or drop a finished head; nothing means wait. */
  async #nextStep(
    current: FoundTurn,
    chatId: string,
    entry: { id: string; createdAt: number },
  ): Promise<{ write?: TurnRecord; taking?: boolean; again?: boolean }> {
    const record: TurnRecord = current?.record ?? emptyTurn(chatId)
    // Here the message holds its place (it arrived again if the queue had given it up): no longer named as given up.
    const arrived = arrivedAgain(record, entry.id)
    const queue = withEntry(record.queue, entry)
    const now = this.engine.now()
    const holderLive = record.holder !== null && record.holder.expiresAt > now && !this.engine.isEarlierIncarnation(record.holder)
    if (!holderLive && queue[0]?.id === entry.id) {
      const token = nextToken(record)
      const lease = { ...this.engine.lease('inbox', token), expiresAt: now + this.leaseMs }
      return { write: { ...arrived, queue, holder: { ...lease, inboxId: entry.id }, fencingToken: token, updatedAt: now }, taking: true }
    }
    const left = !holderLive && queue[0] ? await this.#places.hasLeft(queue[0]) : undefined
    if (left) {
      // The head's run ended without a release (its replica died after marking it done), or it was never journaled: drop it.
      const gaveUp = left === 'never journaled' ? { gaveUp: withGivenUp(arrived, queue[0]!.id) } : {}
      return { write: { ...arrived, queue: queue.slice(1), ...gaveUp, holder: null, updatedAt: now }, again: true }
    }
    if (queue !== record.queue || arrived !== record) return { write: { ...arrived, queue, updatedAt: now } }
    return {}
  }

  #hold(chatId: string, message: HeldRecord<'inbox'>, token: number): HeldTurn {
    const turn: HeldTurn = { chatId, inboxId: message.id, token, message, lost: false }
    this.#held.add(turn)
    this.#renewal.start(false)
    return turn
  }

  /**
   * Writes a change of a held turn; other replicas queueing messages move the version on, so a failed
   * compare-and-set is retried against the record it returned as long as the turn is still ours.
   * False (and the turn lost) once another holder or token is found.
   */
  async #update(turn: HeldTurn, name: 'turn.heartbeat' | 'turn.release', change: (record: TurnRecord) => TurnRecord): Promise<boolean> {
    let current = this.#records.seen(turn.chatId) ?? (await this.#records.read(turn.chatId))
    for (;;) {
      if (!current || current.record.holder?.token !== turn.token || current.record.fencingToken !== turn.token) {
        turn.lost = true
        return false
      }
      const next = { ...change(current.record), updatedAt: this.engine.now() }
      // Kept while it names places given up: a message journaled late must still find its place gone.
      const remove = name === 'turn.release' && next.queue.length === 0 && !next.gaveUp?.length
      const [result] = await this.engine.journal.write(name, [
        remove
          ? { kind: 'turns', delete: journalKey(turn.chatId), expectVersion: current.version }
          : { kind: 'turns', record: next, expectVersion: current.version },
      ])
      if (result!.ok) {
        this.#records.remember(turn.chatId, remove ? undefined : { record: next, version: result!.version })
        return true
      }
      current = result!.current as FoundTurn
      this.#records.remember(turn.chatId, current)
    }
  }

  async #renew(): Promise<void> {
    await Promise.all(
      [...this.#held].map(async (turn) => {
        if (turn.lost) return
        const ok = await this.#update(turn, 'turn.heartbeat', (record) => ({
          ...record,
          holder: { ...record.holder!, expiresAt: this.engine.now() + this.leaseMs },
        }))
        if (!ok)
          this.engine.events.warn(
            `durability: the turn of chat "${turn.chatId}" passed on to another replica while "${turn.inboxId}" ran here`,
          )
      }),
    )
  }
}
