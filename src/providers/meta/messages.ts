/**
 * Webhook payloads as inbound events. Each message's id (`wamid…`) is kept by Meta across
 * redeliveries, so a redelivered webhook maps to the same inbox records. Status updates (sent,
 * delivered, read) are not messages; those echoing an outbox key are delivery reports.
 */
import type { DeliveryReport, InboundEvent, MediaRef } from '../../core/provider.js'

/** A webhook message (the public Cloud API document's names; only what the transport reads). */
export interface MetaWebhookMessage {
  id: string
  from: string
  timestamp?: string
  type: string
  text?: { body: string }
  image?: MetaWebhookMedia
  video?: MetaWebhookMedia
  audio?: MetaWebhookMedia
  document?: MetaWebhookMedia
  sticker?: MetaWebhookMedia
  interactive?: { type: string; button_reply?: { id: string; title: string }; list_reply?: { id: string; title: string } }
  button?: { payload: string; text: string }
}

/** A media object of a webhook message. */
export interface MetaWebhookMedia {
  id: string
  mime_type?: string
  sha256?: string
  caption?: string
  filename?: string
}

/** A status update of one of our sends (`sent`, `delivered`, `read`, `failed`), echoing our `biz_opaque_callback_data`. */
export interface MetaWebhookStatus {
  id: string
  status?: string
  recipient_id?: string
  biz_opaque_callback_data?: string
}

/** A webhook POST body. */
export interface MetaWebhookPayload {
  object?: string
  entry?: {
    id?: string
    changes?: {
      field?: string
      value?: { metadata?: { phone_number_id?: string }; messages?: MetaWebhookMessage[]; statuses?: MetaWebhookStatus[] }
    }[]
  }[]
}

const MEDIA_TYPES = { image: 'image', video: 'video', audio: 'audio', document: 'document', sticker: 'sticker' } as const

/** The inbound events of a webhook payload addressed to `phoneNumberId`, in order. */
export function inboundEventsOf(payload: MetaWebhookPayload, phoneNumberId: string): InboundEvent[] {
  const events: InboundEvent[] = []
  for (const entry of payload.entry ?? []) {
    for (const change of entry.changes ?? []) {
      const value = change.value
      // A WABA may carry several numbers; this provider handles its own.
      if (!value?.messages || value.metadata?.phone_number_id !== phoneNumberId) continue
      for (const message of value.messages) {
        const event = inboundOf(message)
        if (event) events.push(event)
      }
    }
  }
  return events
}

/** The delivery reports of a payload for `phoneNumberId`: statuses that echo an outbox key. */
export function deliveryReportsOf(payload: MetaWebhookPayload, phoneNumberId: string): DeliveryReport[] {
  const reports: DeliveryReport[] = []
  for (const entry of payload.entry ?? []) {
    for (const change of entry.changes ?? []) {
      if (change.value?.metadata?.phone_number_id !== phoneNumberId) continue
      for (const status of change.value.statuses ?? []) {
        const outboxKey = status.biz_opaque_callback_data
        if (typeof outboxKey === 'string' && outboxKey && typeof status.id === 'string')
          reports.push({ outboxKey, messageId: status.id, ...(status.status ? { status: status.status } : {}) })
      }
    }
  }
  return reports
}

function inboundOf(message: MetaWebhookMessage): InboundEvent | undefined {
  if (typeof message.id !== 'string' || typeof message.from !== 'string') return undefined
  const event: InboundEvent = { id: message.id, chatId: message.from, from: message.from, kind: 'message' }
  if (message.timestamp) event.timestamp = Number(message.timestamp) * 1000
  if (message.text) event.text = message.text.body
  const reply = message.interactive?.button_reply ?? message.interactive?.list_reply
  if (reply) return { ...event, kind: 'interaction', interaction: { id: reply.id, data: { title: reply.title } } }
  if (message.button)
    return { ...event, kind: 'interaction', interaction: { id: message.button.payload, data: { title: message.button.text } } }
  const type = MEDIA_TYPES[message.type as keyof typeof MEDIA_TYPES]
  const media = type ? message[message.type as keyof typeof MEDIA_TYPES] : undefined
  if (type && media) {
    const ref: MediaRef = { type, token: media }
    if (media.mime_type) ref.mimeType = media.mime_type
    if (media.filename) ref.fileName = media.filename
    event.media = ref
    if (media.caption) event.text = media.caption
  }
  return event
}
