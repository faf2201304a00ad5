/**
 * The journal records of a new send, built before anything is written: one per part, each linked to
 * the part before and after it so the sweeper can deliver a split text in order after a crash.
 */
import type { OutboundContent } from '../../provider/provider.js'
import type { DurabilityEngine } from '../engine.js'
import { partKey } from './keys.js'
import type { KeyedSend, ResolvedKey } from './outbox-key.js'
import { encodePayload } from './payload.js'
import type { OutboxRecord } from '../journal/records.js'

/**
 * The records of a send of `parts` (a text over the channel's limit split, or the whole content)
 * under its resolved key. `inline`: this process delivers the send right away, so its first record
 * is journaled as sending under this process's lease; otherwise every record is left pending for the
 * sweeper. A part whose payload cannot be journaled makes the whole send bypass the outbox.
 */
export function outboxRecords(
  engine: DurabilityEngine,
  send: KeyedSend,
  { key, fingerprint }: ResolvedKey,
  parts: OutboundContent[],
  inline: boolean,
): OutboxRecord[] | { bypass: string } {
  const now = engine.now()
  const records: OutboxRecord[] = []
  for (const [n, part] of parts.entries()) {
    const encoded = encodePayload(part, engine.config.outbox.maxPayloadBytes)
    if ('bypass' in encoded) return { bypass: `${encoded.bypass}: ${encoded.detail}` }
    const first = n === 0
    records.push({
      key: partKey(key, n + 1),
      state: first && inline ? 'sending' : 'pending',
      chatId: send.chatId,
      payload: encoded.payload,
      fingerprint,
      keySource: send.key.source,
      inboundId: send.key.inboundId,
      ordinal: send.key.ordinal,
      previousPart: first ? null : partKey(key, n),
      nextPart: n + 1 < parts.length ? partKey(key, n + 2) : null,
      attempts: 0,
      nextAttemptAt: null,
      lease: first && inline ? engine.lease('outbox', 1) : null,
      fencingToken: first && inline ? 1 : 0,
      providerMessageId: null,
      lastError: null,
      createdAt: now,
      seq: engine.sequence.next(now),
      updatedAt: now,
    })
  }
  return records
}
