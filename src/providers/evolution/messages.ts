/**
 * Evolution API webhooks as inbound events. A `messages.upsert` event carries one WhatsApp
 * message (the Baileys shape: `key`, `message`, `messageType`, `messageTimestamp`); its key id is
 * kept when Evolution delivers the webhook again, so a redelivery maps to the same inbox record.
 * The bot's own messages (`fromMe`) and other events are acknowledged without an event.
 */
import type { InboundEvent, MediaRef, MediaType } from '../../core/provider/provider.js'
import type { EvolutionMessageKey } from './media-ref.js'
import { pressedIdOf, textOf, WHATSAPP_MEDIA_MESSAGES } from '../shared/whatsapp.js'

/** A webhook POST body (the names Evolution API sends; only what the transport reads). */
export interface EvolutionWebhook {
  /** The event's name: `messages.upsert` (`MESSAGES_UPSERT` from a global webhook) for a new message. */
  event?: string
  /** The name of the Evolution instance (the WhatsApp number) the event is from. */
  instance?: string
  /** The event's data: the message, for `messages.upsert`. */
  data?: EvolutionMessage
}

/** A WhatsApp message as Evolution API reports it. */
export interface EvolutionMessage {
  /** The message's key: chat, sender and id. */
  key: EvolutionMessageKey
  /** The sender's display name in WhatsApp. */
  pushName?: string
  /** The content's kind, named as its field in `message` (`conversation`, `imageMessage`, …). */
  messageType?: string
  /** When the message was sent: Unix time in seconds (a number, or a string of one). */
  messageTimestamp?: number | string
  /** The message's content. */
  message?: EvolutionContent & {
    /** The media itself, base64, when the webhook is set to carry media inline. */
    base64?: string
    /** A document sent with a caption: the content is inside. */
    documentWithCaptionMessage?: {
      /** The document's content. */
      message?: EvolutionContent
    }
  }
}

/** The message content (WhatsApp's `proto.IMessage` names). */
export interface EvolutionContent {
  /** The text of a plain text message. */
  conversation?: string
  /** A text with a link preview, a quote or a mention. */
  extendedTextMessage?: {
    /** Its text. */
    text?: string
  }
  /** An image. */
  imageMessage?: EvolutionMedia
  /** A video. */
  videoMessage?: EvolutionMedia
  /** An audio file or voice note. */
  audioMessage?: EvolutionMedia
  /** A file sent as a document. */
  documentMessage?: EvolutionMedia
  /** A sticker. */
  stickerMessage?: EvolutionMedia
  /** A tap on a button of a buttons message. */
  buttonsResponseMessage?: {
    /** The id the tapped button was sent with. */
    selectedButtonId?: string
  }
  /** A tap on a button of a template message. */
  templateButtonReplyMessage?: {
    /** The id the tapped button was sent with. */
    selectedId?: string
  }
  /** A pick from a list message. */
  listResponseMessage?: {
    /** The single row picked. */
    singleSelectReply?: {
      /** The id the picked row was sent with. */
      selectedRowId?: string
    }
  }
}

/** A media content's fields the transport reads. */
export interface EvolutionMedia {
  /** The file's MIME type, as the sender reported it. */
  mimetype?: string
  /** The caption the sender wrote under the media. */
  caption?: string
  /** The file's name (documents). */
  fileName?: string
}

/** The live media token: the message key, and the media itself when the webhook carried it inline. */
export interface EvolutionLiveMediaToken {
  key: EvolutionMessageKey
  base64?: string
}

/** Whether `event` names a new message (`messages.upsert`, or `MESSAGES_UPSERT` from a global webhook). */
export function isMessagesUpsert(event: unknown): boolean {
  return typeof event === 'string' && event.replace(/[._-]/g, '').toLowerCase() === 'messagesupsert'
}

/** The inbound event of a message, or undefined for the bot's own messages and malformed ones. */
export function inboundOf(message: EvolutionMessage): InboundEvent | undefined {
  const key = message?.key
  if (!key || typeof key.id !== 'string' || typeof key.remoteJid !== 'string' || key.fromMe) return undefined
  const event: InboundEvent = { id: key.id, chatId: key.remoteJid, from: key.participant ?? key.remoteJid, kind: 'message' }
  const timestamp = Number(message.messageTimestamp)
  if (Number.isFinite(timestamp) && timestamp > 0) event.timestamp = timestamp * 1000
  const content: EvolutionContent = { ...message.message, ...message.message?.documentWithCaptionMessage?.message }
  const pressed = pressedIdOf(content)
  if (pressed) return { ...event, kind: 'interaction', interaction: { id: pressed } }
  // The webhook's JSON, typed without null (Baileys' protobuf types allow it): kept as it came.
  const text = textOf(content) as string | undefined
  if (text !== undefined) event.text = text
  const media = mediaOf(content, key, message.message?.base64)
  if (media) {
    event.media = media.ref
    if (media.caption !== undefined) event.text = media.caption
  }
  return event.text === undefined && !event.media ? undefined : event
}

function mediaOf(content: EvolutionContent, key: EvolutionMessageKey, base64: string | undefined) {
  for (const [field, type] of Object.entries(WHATSAPP_MEDIA_MESSAGES) as [keyof typeof WHATSAPP_MEDIA_MESSAGES, MediaType][]) {
    const media = content[field]
    if (!media) continue
    const token: EvolutionLiveMediaToken = { key: { ...key }, ...(base64 ? { base64 } : {}) }
    const ref: MediaRef = { type, token }
    if (media.mimetype) ref.mimeType = media.mimetype
    if (media.fileName) ref.fileName = media.fileName
    return { ref, caption: media.caption }
  }
  return undefined
}
