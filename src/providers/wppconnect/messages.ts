/**
 * WPPConnect Server webhooks as inbound events. The server posts each new message (`onmessage`,
 * and on its start the unread ones again as `unreadmessages`) as WhatsApp Web's serialized message
 * with `event` and `session` added; the message id (`false_<chat>_<id>`) is the same each time, so
 * a message posted twice maps to the same inbox record. The bot's own messages and status
 * broadcasts are acknowledged without an event.
 */
import type { InboundEvent, MediaRef, MediaType } from '../../core/provider.js'

/** A serialized id: a string, or `{ _serialized }` in older servers. */
export type WppconnectId = string | { _serialized?: string }

/** A webhook POST body (the names WPPConnect sends; only what the transport reads). */
export interface WppconnectWebhook {
  event?: string
  session?: string
  id?: WppconnectId
  body?: string
  type?: string
  t?: number
  from?: string
  chatId?: WppconnectId
  author?: string
  fromMe?: boolean
  isGroupMsg?: boolean
  mimetype?: string
  caption?: string
  filename?: string
  selectedButtonId?: string
  listResponse?: { singleSelectReply?: { selectedRowId?: string } }
}

const MEDIA: Record<string, MediaType> = {
  image: 'image',
  video: 'video',
  audio: 'audio',
  ptt: 'audio',
  document: 'document',
  sticker: 'sticker',
}

/** The serialized form of an id. */
export function serialized(id: WppconnectId | undefined): string | undefined {
  return typeof id === 'string' ? id : id?._serialized
}

/** The inbound event of a webhook body, or undefined for other events, the bot's own messages and status broadcasts. */
export function inboundOf(message: WppconnectWebhook): InboundEvent | undefined {
  if (message.event !== 'onmessage' && message.event !== 'unreadmessages') return undefined
  const id = serialized(message.id)
  const chatId = serialized(message.chatId) ?? message.from
  if (!id || !chatId || message.fromMe || chatId === 'status@broadcast') return undefined
  const event: InboundEvent = { id, chatId, from: message.author ?? message.from ?? chatId, kind: 'message' }
  if (typeof message.t === 'number' && message.t > 0) event.timestamp = message.t * 1000
  const pressed = message.selectedButtonId ?? message.listResponse?.singleSelectReply?.selectedRowId
  if (pressed) return { ...event, kind: 'interaction', interaction: { id: pressed } }
  const type = MEDIA[message.type ?? '']
  if (type) {
    const media: MediaRef = { type, token: { id } }
    if (message.mimetype) media.mimeType = message.mimetype
    if (message.filename) media.fileName = message.filename
    event.media = media
    if (message.caption) event.text = message.caption
    return event
  }
  if (message.type !== 'chat' || typeof message.body !== 'string') return undefined
  event.text = message.body
  return event
}
