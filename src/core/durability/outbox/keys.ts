/**
 * Idempotency keys and fingerprints. Every send gets a key:
 * 1. `options.idempotencyKey` when given (explicit; never compared; a long one journaled under its digest);
 * 2. otherwise, while handling an inbound message, `<inbound record id>:<n>` for its n-th send (derived);
 * 3. otherwise a random key.
 */
import { hash, randomUUID } from 'node:crypto'
import type { OutboundContent } from '../../provider/provider.js'
import { journalKey } from '../journal/journal-key.js'
import type { OutboxRecord } from '../journal/records.js'

export interface SendKey {
  key: string
  source: OutboxRecord['keySource']
  inboundId: string | null
  ordinal: number | null
}

/**
 * The inbox record id of an inbound event: the provider, the chat and the channel's event id, so a
 * redelivery maps onto the same record while two chats whose channel numbers messages per chat
 * (Telegram's `message_id`, an email UID per mailbox) never collide. `%` and `:` inside a part are
 * escaped, so the id reads back unambiguously: `telegram:4711:42`. An id over the journal's key
 * limit is journaled under its digest (journal-key.ts).
 */
export function inboxRecordId(provider: string, chatId: string, eventId: string): string {
  return journalKey(`${escapeIdPart(provider)}:${escapeIdPart(chatId)}:${escapeIdPart(eventId)}`)
}

function escapeIdPart(part: string): string {
  // Most parts have nothing to escape: two scans instead of two regex replaces.
  if (!part.includes('%') && !part.includes(':')) return part
  return part.replace(/%/g, '%25').replace(/:/g, '%3A')
}

/** The key of a send under the three rules. */
export function sendKey(explicit: string | undefined, origin: { inboundId: string; ordinal: number } | undefined): SendKey {
  if (explicit !== undefined)
    return { key: journalKey(explicit), source: 'explicit', inboundId: origin?.inboundId ?? null, ordinal: origin?.ordinal ?? null }
  if (origin)
    return { key: `${origin.inboundId}:${origin.ordinal}`, source: 'derived', inboundId: origin.inboundId, ordinal: origin.ordinal }
  return { key: `random:${randomUUID()}`, source: 'random', inboundId: null, ordinal: null }
}

/** sha256 of the chat and the content as the handler made it (before the before('send') hooks). */
export function fingerprint(chatId: string, content: OutboundContent): string {
  const body = typeof content === 'string' ? JSON.stringify(content) : stableJson(content)
  return hash('sha256', `${chatId}\u0000${body}`, 'hex')
}

/**
 * The key a diverged send goes out under with `onDiverged: 'send'`: deterministic in the new content,
 * so a second replay of the same path finds it instead of sending a third time.
 */
export function divergedKey(key: string, newFingerprint: string): string {
  return `${key}~${newFingerprint.slice(0, 12)}`
}

/** The key of part `n` (1-based) of a split send: `key`, `key#2`, `key#3`… */
export function partKey(key: string, n: number): string {
  return n === 1 ? key : `${key}#${n}`
}

function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v) && !Buffer.isBuffer(v) && (v as { type?: string }).type !== 'Buffer') {
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    }
    return v
  })
}
