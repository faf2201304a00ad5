/**
 * Webhook payloads as inbound events. Each message's id (`wamid…`) is kept by Meta across
 * redeliveries, so a redelivered webhook maps to the same inbox records. Status updates (sent,
 * delivered, read) are not messages; those echoing an outbox key are delivery reports.
 */
import type { DeliveryReport, InboundEvent, MediaRef } from '../../core/provider/provider.js'

/** A webhook message (the public Cloud API document's names; only what the transport reads). */
export interface MetaWebhookMessage {
  /** The message's id (`wamid.…`), the same on every redelivery. */
  id: string
  /** The sender's WhatsApp number (`wa_id`: digits with the country code, no `+`). */
  from: string
  /** When the user sent the message: Unix time in seconds, as a string. */
  timestamp?: string
  /** The message's kind: `text`, `image`, `video`, `audio`, `document`, `sticker`, `interactive`, `button`, … */
  type: string
  /** The content of a `text` message. */
  text?: {
    /** The text the user wrote. */
    body: string
  }
  /** The image of an `image` message. */
  image?: MetaWebhookMedia
  /** The video of a `video` message. */
  video?: MetaWebhookMedia
  /** The recording or file of an `audio` message. */
  audio?: MetaWebhookMedia
  /** The file of a `document` message. */
  document?: MetaWebhookMedia
  /** The sticker of a `sticker` message. */
  sticker?: MetaWebhookMedia
  /** The user's answer to an interactive message (a reply button or a list). */
  interactive?: {
    /** Which answer it is: `button_reply` or `list_reply`. */
    type: string
    /** The reply button the user tapped. */
    button_reply?: {
      /** The id the button was sent with. */
      id: string
      /** The button's label. */
      title: string
    }
    /** The list row the user picked. */
    list_reply?: {
      /** The id the row was sent with. */
      id: string
      /** The row's title. */
      title: string
    }
  }
  /** The user's tap on a quick-reply button of a template message. */
  button?: {
    /** The payload the template's button carries. */
    payload: string
    /** The button's label. */
    text: string
  }
}

/** A media object of a webhook message. */
export interface MetaWebhookMedia {
  /** The media id, which the Graph API exchanges for a short-lived download URL. */
  id: string
  /** The file's MIME type, as Meta reports it. */
  mime_type?: string
  /** The file's SHA-256 hash, as Meta reports it. */
  sha256?: string
  /** The caption the user wrote under the media. */
  caption?: string
  /** The file's name (documents). */
  filename?: string
}

/** A status update of one of our sends (`sent`, `delivered`, `read`, `failed`), echoing our `biz_opaque_callback_data`. */
export interface MetaWebhookStatus {
  /** The id (`wamid.…`) of the message the status is about. */
  id: string
  /** The message's new status: `sent`, `delivered`, `read` or `failed`. */
  status?: string
  /** The recipient's WhatsApp number. */
  recipient_id?: string
  /** The text sent with the message and echoed here (botmesh sends its outbox key). */
  biz_opaque_callback_data?: string
}

/** A webhook POST body. */
export interface MetaWebhookPayload {
  /** What the webhook is about: `whatsapp_business_account`. */
  object?: string
  /** One entry per WhatsApp Business Account with changes. */
  entry?: {
    /** The WhatsApp Business Account id. */
    id?: string
    /** What changed in the account. */
    changes?: {
      /** The subscribed field that changed: `messages` for messages and statuses. */
      field?: string
      /** The change itself. */
      value?: {
        /** The business phone number the change is for. */
        metadata?: {
          /** The id of that phone number (a provider handles only its own). */
          phone_number_id?: string
        }
        /** Messages users sent to the number. */
        messages?: MetaWebhookMessage[]
        /** Status updates of messages the number sent. */
        statuses?: MetaWebhookStatus[]
      }
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
