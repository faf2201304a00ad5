/**
 * How a sweep takes over inbound records a chat's lane left behind (a dead process, a lease run
 * out, a retry come due): head first, in the chat's order (chat-order.ts), and a message never while
 * the one it was queued behind (`InboxRecord.after`) is unfinished and not held here. Only the head
 * of a chat is charged a run: the messages queued behind it run only after it, so a head that
 * crashes the process on every run is dead-lettered without taking its chat's next messages along.
 */
import type { Versioned } from '../journal/backend.js'
import { bySeq, seqOf } from '../turns/chat-order.js'
import type { DurabilityEngine } from '../engine.js'
import { LIMITS } from '../limits.js'
import { recordIndex, type InboxRecord } from '../journal/records.js'

/** A due record the sweep may claim now, and whether the claim charges it a run (it heads its chat here). */
export interface Takeover {
  found: Versioned<InboxRecord>
  charge: boolean
}

/** Whether a record is finished: nothing of its chat needs to wait for it any more. */
function finished(record: InboxRecord): boolean {
  return record.state === 'done' || record.state === 'dead'
}

/** Whether this process may work on a record now: not its own already, and not leased to a live run elsewhere. */
function canWorkOnInbound(engine: DurabilityEngine, record: InboxRecord): boolean {
  if (engine.keeper.holds('inbox', record.id)) return false
  return record.state !== 'processing' || engine.leaseIsOver(record.lease, 'inbox', record.id)
}

/** Whether `previous` holds `record` back: unfinished, earlier in the chat, and not replayed into a later place since. */
function holdsBack(previous: InboxRecord | undefined, record: InboxRecord): boolean {
  return previous !== undefined && !finished(previous) && seqOf(previous) < seqOf(record)
}

/**
 * The due records with the heads the due batch missed (an unfinished record they queue behind that
 * can be taken now, followed up to LIMITS.laneWalkMax links), in the chats' order, and what was read
 * of the records they queue behind that stay where they are.
 */
async function withHeads(
  engine: DurabilityEngine,
  due: readonly Versioned<InboxRecord>[],
): Promise<{ ordered: Versioned<InboxRecord>[]; behind: Map<string, InboxRecord | undefined> }> {
  const byId = new Map(due.map((found) => [found.record.id, found]))
  const behind = new Map<string, InboxRecord | undefined>()
  const now = engine.now()
  let frontier = [...due]
  for (let walked = 0; walked < LIMITS.laneWalkMax && frontier.length > 0; walked++) {
    const missing = new Set<string>()
    for (const { record } of frontier) {
      const previous = record.after
      if (previous && !byId.has(previous) && !behind.has(previous) && !engine.keeper.holds('inbox', previous)) missing.add(previous)
    }
    if (missing.size === 0) break
    const ids = [...missing]
    const read = await engine.journal.read('inbox', ids)
    frontier = []
    ids.forEach((id, n) => {
      const found = read[n]
      const due = found ? recordIndex('inbox', found.record).due : null
      if (found && !finished(found.record) && due !== null && due <= now && canWorkOnInbound(engine, found.record)) {
        byId.set(id, found)
        frontier.push(found)
      } else behind.set(id, found?.record)
    })
  }
  for (const { record } of byId.values()) engine.sequence.observe(seqOf(record))
  return { ordered: [...byId.values()].sort((a, b) => bySeq(a.record, b.record)), behind }
}

/**
 * The records a sweep may claim now, each chat's in order, head first. `claim` claims one (charging
 * it when asked) and says how it went: `held` and the chat's later records follow it uncharged;
 * `dead` (its runs were used up) and the next one heads the chat; `lost` (a race, a lease still
 * live) and the chat waits for a later sweep. `hasRoom` stops the sweep once the process holds enough.
 */
export async function takeOver(
  engine: DurabilityEngine,
  due: readonly Versioned<InboxRecord>[],
  claim: (takeover: Takeover) => Promise<'held' | 'dead' | 'lost'>,
  hasRoom: () => boolean = () => true,
): Promise<void> {
  const { ordered, behind } = await withHeads(engine, due)
  /** Chats that wait for a later sweep. */
  const waiting = new Set<string>()
  /** Chats whose head this process holds (from before, or claimed by this sweep): their next records follow it. */
  const headed = new Set<string>()
  for (const found of ordered) {
    if (!hasRoom()) break
    const { id, chatId, after } = found.record
    if (waiting.has(chatId)) continue
    if (engine.keeper.holds('inbox', id)) {
      headed.add(chatId)
      continue
    }
    if (!canWorkOnInbound(engine, found.record)) {
      waiting.add(chatId)
      continue
    }
    const queuedHere = headed.has(chatId) || (after != null && engine.keeper.holds('inbox', after))
    if (!queuedHere && after != null && behind.has(after) && holdsBack(behind.get(after), found.record)) {
      waiting.add(chatId)
      continue
    }
    const outcome = await claim({ found, charge: !queuedHere })
    if (outcome === 'held') headed.add(chatId)
    else if (outcome === 'lost') waiting.add(chatId)
  }
}

/** Whether a sweep now would claim one of `due` (`bot.idle()` asks): the same rule, without claiming. */
export async function canTakeOverAny(engine: DurabilityEngine, due: readonly Versioned<InboxRecord>[]): Promise<boolean> {
  let any = false
  await takeOver(
    engine,
    due,
    async () => {
      any = true
      return 'lost'
    },
    () => !any,
  )
  return any
}
