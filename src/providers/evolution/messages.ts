/**
 * Evolution API webhooks as inbound events. A `messages.upsert` event carries one WhatsApp
 * message (the Baileys shape: `key`, `message`, `messageType`, `messageTimestamp`); its key id is
 * kept when Evolution delivers the webhook again, so a redelivery maps to the same inbox record.
 * The bot's own messages (`fromMe`) and other events are acknowledged without an event.
 */
import type { InboundEvent, MediaRef, MediaType } from '../../core/provider.js'
import type { EvolutionMessageKey } from './media-ref.js'

/** A webhook POST body (the names Evolution API sends; only what the transport reads). */
export interface EvolutionWebhook {
  event?: string
  instance?: string
  data?: EvolutionMessage
}

/** A WhatsApp message as Evolution API reports it. */
export interface EvolutionMessage {
  key: EvolutionMessageKey
  pushName?: string
  messageType?: string
  messageTimestamp?: number | string
  message?: EvolutionContent & { base64?: string; documentWithCaptionMessage?: { message?: EvolutionContent } }
}

/** The message content (WhatsApp's `proto.IMessage` names). */
export interface EvolutionContent {
  conversation?: string
  extendedTextMessage?: { text?: string }
  imageMessage?: EvolutionMedia
  videoMessage?: EvolutionMedia
  audioMessage?: EvolutionMedia
  documentMessage?: EvolutionMedia
  stickerMessage?: EvolutionMedia
  buttonsResponseMessage?: { selectedButtonId?: string }
  templateButtonReplyMessage?: { selectedId?: string }
  listResponseMessage?: { singleSelectReply?: { selectedRowId?: string } }
}

/** A media content's fields the transport reads. */
export interface EvolutionMedia {
  mimetype?: string
  caption?: string
  fileName?: string
}

/** The live media token: the message key, and the media itself when the webhook carried it inline. */
export interface EvolutionLiveMediaToken {
  key: EvolutionMessageKey
  base64?: string
}

const MEDIA = {
  imageMessage: 'image',
  videoMessage: 'video',
  audioMessage: 'audio',
  documentMessage: 'document',
  stickerMessage: 'sticker',
} as const

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
  const pressed =
    content.buttonsResponseMessage?.selectedButtonId ??
    content.templateButtonReplyMessage?.selectedId ??
    content.listResponseMessage?.singleSelectReply?.selectedRowId
  if (pressed) return { ...event, kind: 'interaction', interaction: { id: pressed } }
  const text = content.conversation ?? content.extendedTextMessage?.text
  if (text !== undefined) event.text = text
  const media = mediaOf(content, key, message.message?.base64)
  if (media) {
    event.media = media.ref
    if (media.caption !== undefined) event.text = media.caption
  }
  return event.text === undefined && !event.media ? undefined : event
}

function mediaOf(content: EvolutionContent, key: EvolutionMessageKey, base64: string | undefined) {
  for (const [field, type] of Object.entries(MEDIA) as [keyof typeof MEDIA, MediaType][]) {
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
