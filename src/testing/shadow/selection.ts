/**
 * Which inbound records a shadow run replays, and in which order: the records of the states asked
 * for (or the ids named), filtered by chat and admission time, the most recent `limit` of them,
 * each chat's in its recorded order (`seq`, else `createdAt`), chats by their first message.
 */
import type { Journal } from '../../core/durability/journal/backend.js'
import type { InboxRecord, InboxState } from '../../core/durability/journal/records.js'
import { SEQ_PER_MS } from '../../core/durability/turns/chat-order.js'
import { RecordNotFoundError } from '../../core/errors/errors.js'
import { SHADOW_LIMITS } from './limits.js'

/** What to replay. */
export interface ShadowSelection {
  /** Only this chat's messages. */
  chatId?: string
  /** Only messages admitted at or after this time (ms since the epoch). */
  since?: number
  /** The inbound states to replay; with `ids`, a named record of another state is skipped. */
  states?: readonly InboxState[]
  /** At most this many messages, the most recent ones. */
  limit: number
  /** These inbound records (their chats' order still applies). */
  ids?: readonly string[]
}

/** The records to replay, in the order they run. */
export async function selectInbound(journal: Journal, selection: ShadowSelection): Promise<InboxRecord[]> {
  const found = selection.ids ? await named(journal, selection.ids) : await listed(journal, selection.states ?? ['done'])
  const kept = found.filter(
    (record) =>
      (selection.chatId === undefined || record.chatId === selection.chatId) &&
      (selection.since === undefined || record.createdAt >= selection.since) &&
      (!selection.ids || selection.states === undefined || selection.states.includes(record.state)),
  )
  const recent = kept.sort((a, b) => a.createdAt - b.createdAt || placeOf(a) - placeOf(b)).slice(-selection.limit)
  return runOrder(recent)
}

async function named(journal: Journal, ids: readonly string[]): Promise<InboxRecord[]> {
  const unique = [...new Set(ids)]
  const found = await journal.read('inbox', unique)
  return found.map((entry, index) => {
    if (!entry) throw new RecordNotFoundError('inbox', unique[index]!)
    return entry.record
  })
}

async function listed(journal: Journal, states: readonly InboxState[]): Promise<InboxRecord[]> {
  const records: InboxRecord[] = []
  for (const state of new Set(states)) {
    let after: { stateTime: number; key: string } | undefined
    while (records.length < SHADOW_LIMITS.scanMax) {
      const page = await journal.list('inbox', { state, ...(after && { after }), limit: SHADOW_LIMITS.pageSize })
      for (const { record } of page) records.push(record)
      if (page.length < SHADOW_LIMITS.pageSize) break
      const last = page[page.length - 1]!.record
      after = { stateTime: last.updatedAt, key: last.id }
    }
  }
  return records
}

/** Each chat's records in their recorded order; chats in the order of their first message. */
function runOrder(records: InboxRecord[]): InboxRecord[] {
  const chats = new Map<string, InboxRecord[]>()
  for (const record of records) {
    const chat = chats.get(record.chatId)
    if (chat) chat.push(record)
    else chats.set(record.chatId, [record])
  }
  return [...chats.values()].flatMap((chat) => chat.sort((a, b) => placeOf(a) - placeOf(b) || a.createdAt - b.createdAt))
}

/** A record's place in its chat: its sequence number, or (older records) its admission time on the same scale. */
function placeOf(record: InboxRecord): number {
  return record.seq ?? record.createdAt * SEQ_PER_MS
}
