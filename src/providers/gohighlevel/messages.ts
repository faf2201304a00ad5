/**
 * HighLevel `InboundMessage` webhooks as inbound events: a contact wrote to the location on one of
 * its channels (SMS, WhatsApp, …). The message id is the same when HighLevel delivers the webhook
 * again, so a redelivery maps to the same inbox record. The chat is the contact.
 */
import type { InboundEvent, MediaRef, MediaType } from '../../core/provider/provider.js'

/** A webhook POST body (the names HighLevel sends; only what the transport reads). */
export interface GoHighLevelWebhook {
  /** The webhook's event: `InboundMessage` when a contact wrote (other events are acknowledged). */
  type?: string
  /** The id of the HighLevel location (sub-account) the message is for. */
  locationId?: string
  /** The id of the contact who wrote: the chat. */
  contactId?: string
  /** The id of the HighLevel conversation the message is in. */
  conversationId?: string
  /** The message's id, the same when HighLevel delivers the webhook again. */
  messageId?: string
  /** The channel the message came on: `SMS`, `WhatsApp`, `Email`, … (a provider handles one). */
  messageType?: string
  /** `inbound` (the contact wrote) or `outbound` (the location did). */
  direction?: string
  /** The message's text. */
  body?: string
  /** The body's MIME type (e.g. `text/plain`). */
  contentType?: string
  /** URLs of the files attached to the message. */
  attachments?: string[]
  /** When HighLevel recorded the message: an ISO 8601 date-time. */
  dateAdded?: string
  /** When HighLevel sent the webhook (ISO 8601, or ms since the epoch); signed with the body. */
  timestamp?: string | number
  /** The webhook delivery's id; signed with the body. */
  webhookId?: string
}

/** The inbound event of a webhook for `locationId` and `messageType`, or undefined for anything else. */
export function inboundOf(webhook: GoHighLevelWebhook, locationId: string, messageType: string): InboundEvent | undefined {
  if (webhook.type !== 'InboundMessage' || webhook.direction === 'outbound') return undefined
  if (webhook.locationId !== locationId || webhook.messageType !== messageType) return undefined
  if (typeof webhook.messageId !== 'string' || typeof webhook.contactId !== 'string') return undefined
  const event: InboundEvent = { id: webhook.messageId, chatId: webhook.contactId, from: webhook.contactId, kind: 'message' }
  const time = webhook.dateAdded ? Date.parse(webhook.dateAdded) : NaN
  if (Number.isFinite(time)) event.timestamp = time
  if (typeof webhook.body === 'string' && webhook.body !== '') event.text = webhook.body
  const url = webhook.attachments?.find((attachment) => typeof attachment === 'string')
  if (url) event.media = mediaOf(url)
  return event.text === undefined && !event.media ? undefined : event
}

/** An attachment URL as media, its type guessed from the file name (HighLevel sends only the URL). */
function mediaOf(url: string): MediaRef {
  const extension = new URL(url, 'https://x.invalid').pathname.split('.').pop()?.toLowerCase() ?? ''
  const type: MediaType = /^(jpe?g|png|gif|webp)$/.test(extension)
    ? 'image'
    : /^(mp4|mov|3gp)$/.test(extension)
      ? 'video'
      : /^(mp3|ogg|oga|m4a|amr|wav)$/.test(extension)
        ? 'audio'
        : 'document'
  return { type, token: { url } }
}
