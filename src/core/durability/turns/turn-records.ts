/**
 * The chats' turn records as this process last saw them (records.ts TurnRecord): a claim or a queue
 * write goes against the version seen, without a read first; a failed compare-and-set returns the
 * current record, which is remembered in its place. Bounded by LIMITS.turnCacheMax chats.
 */
import type { Versioned } from '../journal/backend.js'
import type { DurabilityEngine } from '../engine.js'
import { journalKey } from '../journal/journal-key.js'
import { LIMITS } from '../limits.js'
import type { TurnRecord } from '../journal/records.js'

/** A chat's turn record as read or written, or undefined when the chat has none. */
export type FoundTurn = Versioned<TurnRecord> | undefined

/** What a chat without a turn record starts from. */
export function emptyTurn(chatId: string): TurnRecord {
  return { chatId, queue: [], holder: null, fencingToken: 0, updatedAt: 0 }
}

export class TurnRecords {
  readonly #seen = new Map<string, FoundTurn>()

  constructor(private readonly engine: DurabilityEngine) {}

  /** The record last seen for the chat, read when this process has seen none. */
  async seenOrRead(chatId: string): Promise<FoundTurn> {
    return this.#seen.has(chatId) ? this.#seen.get(chatId) : await this.read(chatId)
  }

  /** The record last seen for the chat (undefined when none, or not seen). */
  seen(chatId: string): FoundTurn {
    return this.#seen.get(chatId)
  }

  /** The journal's record of the chat now. */
  async read(chatId: string): Promise<FoundTurn> {
    const [found] = await this.engine.journal.read('turns', [journalKey(chatId)])
    this.remember(chatId, found)
    return found
  }

  /** Writes `next` against the version of `current`; the record now, and whether the write took. */
  async write(name: 'turn.queue' | 'turn.claim', current: FoundTurn, next: TurnRecord): Promise<{ ok: boolean; current: FoundTurn }> {
    const [result] = await this.engine.journal.write(name, [{ kind: 'turns', record: next, expectVersion: current?.version ?? 0 }])
    const now: FoundTurn = result!.ok ? { record: next, version: result!.version } : (result!.current as FoundTurn)
    this.remember(next.chatId, now)
    return { ok: result!.ok, current: now }
  }

  remember(chatId: string, found: FoundTurn): void {
    this.#seen.delete(chatId)
    this.#seen.set(chatId, found)
    if (this.#seen.size > LIMITS.turnCacheMax) this.#seen.delete(this.#seen.keys().next().value!)
  }
}
