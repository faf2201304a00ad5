/**
 * Gupshup callbacks as inbound events. A `message` callback carries one user message whose `id`
 * Gupshup keeps when it posts the callback again, so a redelivery maps to the same inbox record.
 * Delivery reports (`message-event`) and opt-ins (`user-event`) are acknowledged without an event.
 */
import type { InboundEvent, MediaRef, MediaType } from '../../core/provider/provider.js'

/** A callback POST body (the names Gupshup sends, version 2; only what the transport reads). */
export interface GupshupCallback {
  /** The name of the Gupshup app the callback is for. */
  app?: string
  /** When Gupshup sent the callback, in ms since the epoch. */
  timestamp?: number
  /** The callback format's version (2). */
  version?: number
  /** The callback's kind: `message` (a user message), `message-event` (a delivery report), `user-event` (an opt-in or out). */
  type?: string
  /** The user message, for a `message` callback. */
  payload?: GupshupMessage
}

/** The user message of a `message` callback. */
export interface GupshupMessage {
  /** The message's id, the same when Gupshup posts the callback again. */
  id?: string
  /** The user's phone number, with the country code. */
  source?: string
  /** The message's kind: `text`, `image`, `video`, `audio`, `file`, `sticker`, `button_reply`, `list_reply`, `quick_reply`, … */
  type?: string
  /** The message's content; which fields are set depends on `type`. */
  payload?: {
    /** The text of a `text` message. */
    text?: string
    /** The media's download URL on Gupshup's servers. */
    url?: string
    /** The caption the user wrote under the media. */
    caption?: string
    /** The media's MIME type. */
    contentType?: string
    /** The file's name (a `file` message). */
    name?: string
    /** The label of the tapped button or picked row. */
    title?: string
    /** The id of the tapped button or picked row. */
    id?: string
    /** The postback text the tapped button or picked row was sent with. */
    postbackText?: string
  }
  /** Who sent the message. */
  sender?: {
    /** The user's phone number, with the country code. */
    phone?: string
    /** The user's WhatsApp profile name. */
    name?: string
  }
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
