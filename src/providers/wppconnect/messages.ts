/**
 * WPPConnect Server webhooks as inbound events. The server posts each new message (`onmessage`,
 * and on its start the unread ones again as `unreadmessages`) as WhatsApp Web's serialized message
 * with `event` and `session` added; the message id (`false_<chat>_<id>`) is the same each time, so
 * a message posted twice maps to the same inbox record. The bot's own messages and status
 * broadcasts are acknowledged without an event.
 */
import type { InboundEvent, MediaRef, MediaType } from '../../core/provider/provider.js'

/** A serialized id: a string, or `{ _serialized }` in older servers. */
export type WppconnectId =
  | string
  | {
      /** The id as a string (`false_5511999999999@c.us_3EB0…`). */
      _serialized?: string
    }

/** A webhook POST body (the names WPPConnect sends; only what the transport reads). */
export interface WppconnectWebhook {
  /** The event's name: `onmessage` for a new message, `unreadmessages` for unread ones posted again at the server's start. */
  event?: string
  /** The name of the WPPConnect session (one WhatsApp number) the event is from. */
  session?: string
  /** The message's id (`false_<chat>_<id>`), the same each time it is posted. */
  id?: WppconnectId
  /** The text of a `chat` (text) message. */
  body?: string
  /** The message's kind: `chat` (text), `image`, `video`, `audio`, `ptt` (voice note), `document`, `sticker`, … */
  type?: string
  /** When the message was sent: Unix time in seconds. */
  t?: number
  /** Where the message came from: the contact, or the group (`…@g.us`) of a group message. */
  from?: string
  /** The chat's id: the contact or the group. */
  chatId?: WppconnectId
  /** In a group, the member who sent the message. */
  author?: string
  /** Whether the session's own number sent the message. */
  fromMe?: boolean
  /** Whether the message was sent in a group. */
  isGroupMsg?: boolean
  /** The media's MIME type, as the sender reported it. */
  mimetype?: string
  /** The caption the sender wrote under the media. */
  caption?: string
  /** The file's name (documents). */
  filename?: string
  /** The id the tapped button was sent with (a reply to a buttons message). */
  selectedButtonId?: string
  /** A pick from a list message. */
  listResponse?: {
    /** The single row picked. */
    singleSelectReply?: {
      /** The id the picked row was sent with. */
      selectedRowId?: string
    }
  }
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
