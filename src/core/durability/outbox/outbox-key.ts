/**
 * The key a send is journaled under, by the rules of keys.ts: a fresh key needs no lookup; a key that
 * may already be journaled (explicit, or derived on a replay) is answered by its record, or
 * diverges when a replay made different content under it.
 */
import type { OutboundContent } from '../../provider/provider.js'
import type { DurabilityEngine } from '../engine.js'
import { divergedKey, fingerprint as fingerprintOf, type SendKey } from './keys.js'
import type { OutboxRecord } from '../journal/records.js'

/** The key a new send is journaled under, and its fingerprint. */
export type ResolvedKey = { key: string; fingerprint: string | null }

/** What a send to `chatId` of `content` under `key` is. */
export interface KeyedSend {
  chatId: string
  content: OutboundContent
  key: SendKey
  /** Whether earlier runs may already have journaled sends under derived keys. */
  replay: boolean
}

/**
 * The key of a send that needs no lookup, or undefined: a random key is new, and a fresh inbound has
 * no earlier sends, so its derived keys are new too (one round trip, and a promise, saved).
 */
export function quickKey(send: KeyedSend): ResolvedKey | undefined {
  if (send.key.source === 'random') return { key: send.key.key, fingerprint: null }
  if (send.key.source === 'derived' && !send.replay) return { key: send.key.key, fingerprint: fingerprintOf(send.chatId, send.content) }
  return undefined
}

/** The key rules against what is journaled: an existing record answers the send. */
export async function lookupKey(engine: DurabilityEngine, send: KeyedSend): Promise<ResolvedKey | { answer: OutboxRecord | undefined }> {
  const fingerprint = send.key.source === 'derived' ? fingerprintOf(send.chatId, send.content) : null
  const [existing] = await engine.journal.read('outbox', [send.key.key])
  if (!existing) return { key: send.key.key, fingerprint }
  if (send.key.source !== 'derived' || existing.record.fingerprint === fingerprint) return { answer: existing.record }
  engine.metrics.increment('outboxDiverged')
  engine.events.warn(
    `durability: a replay of ${send.key.inboundId} made different content under key "${send.key.key}" (onDiverged: '${engine.config.outbox.onDiverged}')`,
  )
  if (engine.config.outbox.onDiverged === 'skip') return { answer: existing.record }
  const key = divergedKey(send.key.key, fingerprint!)
  const [diverged] = await engine.journal.read('outbox', [key])
  return diverged ? { answer: diverged.record } : { key, fingerprint }
}
