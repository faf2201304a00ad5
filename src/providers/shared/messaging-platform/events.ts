/**
 * Messenger Platform webhook payloads (Messenger, Instagram) as inbound events. Each entry's
 * `messaging` holds events: a message (`mid`, `text`, `attachments`, `quick_reply`) or a postback
 * (a button press: `payload`, `title`, `mid`). The `mid` is kept by Meta across redeliveries, so a
 * redelivered webhook maps to the same inbox records. Echoes of our own sends, delivery and read
 * receipts and reactions are not inbound messages and are acknowledged without an event.
 */
import type { InboundEvent, MediaRef, MediaType } from '../../../core/provider/provider.js'

/** A webhook attachment (only what the transport reads). */
export interface MessagingAttachment {
  type: string
  payload?: { url?: string }
}

/** One `messaging` event of a webhook entry. */
export interface MessagingEvent {
  sender?: { id?: string }
  recipient?: { id?: string }
  timestamp?: number
  message?: {
    mid?: string
    text?: string
    is_echo?: boolean
    quick_reply?: { payload?: string }
    attachments?: MessagingAttachment[]
  }
  postback?: { mid?: string; title?: string; payload?: string }
}

/** A webhook POST body. */
export interface MessagingWebhookPayload {
  object?: string
  entry?: { id?: string; time?: number; messaging?: MessagingEvent[] }[]
}

const MEDIA_TYPES: Record<string, MediaType> = { image: 'image', video: 'video', audio: 'audio', file: 'document' }

/** The inbound events of a payload of `object` ('page', 'instagram') addressed to `accountId`, in order. */
export function inboundEventsOf(payload: MessagingWebhookPayload, object: string, accountId: string): InboundEvent[] {
  if (payload.object !== object) return []
  const events: InboundEvent[] = []
  for (const entry of payload.entry ?? []) {
    for (const messaging of entry.messaging ?? []) {
      // A page or account may share the webhook with others; this provider handles its own.
      if (messaging.recipient?.id !== accountId) continue
      const event = inboundOf(messaging)
      if (event) events.push(event)
    }
  }
  return events
}

function inboundOf(messaging: MessagingEvent): InboundEvent | undefined {
  const from = messaging.sender?.id
  if (typeof from !== 'string') return undefined
  const base = { chatId: from, from, ...(typeof messaging.timestamp === 'number' ? { timestamp: messaging.timestamp } : {}) }
  const { postback, message } = messaging
  if (postback?.mid && postback.payload)
    return {
      ...base,
      id: postback.mid,
      kind: 'interaction',
      interaction: { id: postback.payload, ...(postback.title ? { data: { title: postback.title } } : {}) },
    }
  if (!message?.mid || message.is_echo) return undefined
  const event: InboundEvent = { ...base, id: message.mid, kind: 'message' }
  if (message.text) event.text = message.text
  if (message.quick_reply?.payload)
    return {
      ...event,
      kind: 'interaction',
      interaction: { id: message.quick_reply.payload, ...(message.text ? { data: { title: message.text } } : {}) },
    }
  const attachment = message.attachments?.find((a) => MEDIA_TYPES[a.type] && typeof a.payload?.url === 'string')
  if (attachment) {
    const media: MediaRef = { type: MEDIA_TYPES[attachment.type]!, token: { url: attachment.payload!.url! } }
    event.media = media
  }
  return event
}
