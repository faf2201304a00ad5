/**
 * The sends the journal recorded for an inbound message: the outbox records under the keys derived
 * from it (`<inbound record id>:<n>`, the n-th send of its handler, from 1), in order, each with the later
 * parts of a split text (`key#2`, `key#3`, … by `nextPart`) joined back into one text. Sends under
 * an explicit or a random key carry no position and are not found here.
 */
import type { Journal, Versioned } from '../../core/durability/journal/backend.js'
import type { OutboxRecord } from '../../core/durability/journal/records.js'
import { decodePayload } from '../../core/durability/outbox/payload.js'
import type { OutboundContent } from '../../core/provider/provider.js'
import type { RecordedSend } from './recording-provider.js'
import { SHADOW_LIMITS } from './limits.js'

/** The recorded sends of the inbound record `inboundId`, in the order its handler made them. */
export async function recordedSends(journal: Journal, inboundId: string): Promise<RecordedSend[]> {
  const sends: RecordedSend[] = []
  const batch = SHADOW_LIMITS.sendReadBatch
  for (let first = 1; first <= SHADOW_LIMITS.sendsPerMessageMax; first += batch) {
    const keys = Array.from({ length: batch }, (_, n) => `${inboundId}:${first + n}`)
    const found = await journal.read('outbox', keys)
    for (const entry of found) {
      if (!entry) return sends
      sends.push({ chatId: entry.record.chatId, content: await joinedContent(journal, entry.record) })
    }
  }
  return sends
}

/** A send's content, with the later parts of a text split over the channel's limit appended. */
async function joinedContent(journal: Journal, record: OutboxRecord): Promise<OutboundContent> {
  const content = decodePayload(record.payload)
  let next = record.nextPart ?? null
  if (next === null) return content
  let text = textOf(content)
  for (let parts = 1; next !== null && parts < SHADOW_LIMITS.partsMax; parts++) {
    const [part]: (Versioned<OutboxRecord> | undefined)[] = await journal.read('outbox', [next])
    if (!part) break
    text += textOf(decodePayload(part.record.payload))
    next = part.record.nextPart ?? null
  }
  return typeof content === 'string' ? text : { ...content, text }
}

/** A split text's part: a string, or `{ text }` (splitContent splits nothing else). */
function textOf(content: OutboundContent): string {
  return typeof content === 'string' ? content : (content.text ?? '')
}
