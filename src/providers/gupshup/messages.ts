/**
 * Gupshup callbacks as inbound events. A `message` callback carries one user message whose `id`
 * Gupshup keeps when it posts the callback again, so a redelivery maps to the same inbox record.
 * Delivery reports (`message-event`) and opt-ins (`user-event`) are acknowledged without an event.
 */
import type { InboundEvent, MediaRef, MediaType } from '../../core/provider.js'

/** A callback POST body (the names Gupshup sends, version 2; only what the transport reads). */
export interface GupshupCallback {
  app?: string
  timestamp?: number
  version?: number
  type?: string
  payload?: GupshupMessage
}

/** The user message of a `message` callback. */
export interface GupshupMessage {
  id?: string
  source?: string
  type?: string
  payload?: {
    text?: string
    url?: string
    caption?: string
    contentType?: string
    name?: string
    title?: string
    id?: string
    postbackText?: string
  }
  sender?: { phone?: string; name?: string }
}

const MEDIA: Record<string, MediaType> = { image: 'image', video: 'video', audio: 'audio', file: 'document', sticker: 'sticker' }

/** The inbound event of a callback of `app`, or undefined for other callbacks. */
export function inboundOf(callback: GupshupCallback, app: string): InboundEvent | undefined {
  const message = callback.payload
  if (callback.type !== 'message' || callback.app !== app || typeof message?.id !== 'string') return undefined
  const chatId = message.source ?? message.sender?.phone
  if (!chatId) return undefined
  const event: InboundEvent = { id: message.id, chatId, from: chatId, kind: 'message' }
  if (typeof callback.timestamp === 'number') event.timestamp = callback.timestamp
  const body = message.payload ?? {}
  if (message.type === 'button_reply' || message.type === 'list_reply' || message.type === 'quick_reply') {
    const id = body.postbackText ?? body.id ?? body.title
    return id ? { ...event, kind: 'interaction', interaction: { id } } : undefined
  }
  if (message.type === 'text' && typeof body.text === 'string') return { ...event, text: body.text }
  const type = MEDIA[message.type ?? '']
  if (!type || typeof body.url !== 'string') return undefined
  const media: MediaRef = { type, token: { url: body.url } }
  if (body.contentType) media.mimeType = body.contentType
  if (body.name) media.fileName = body.name
  return { ...event, media, ...(body.caption ? { text: body.caption } : {}) }
}
