/**
 * What WhatsApp itself decides, the same on every transport that speaks it: its limits (Baileys,
 * Evolution, WPPConnect, Gupshup, the Cloud API), and for the channels on WhatsApp Web (Baileys,
 * Evolution) the message fields that carry media, text and a press, a JID on one of WhatsApp's
 * own domains, and a message key.
 */
import type { Json, MediaType } from '../../core/provider/provider.js'
import { booleanField, objectField, prop, stringField, type FieldCheck } from './shape.js'

/** WhatsApp's own limits; each transport's limits start from them. */
export const WHATSAPP_LIMITS = {
  /** The longest text sent as one WhatsApp message (longer texts are split by the bot). @default 4096 */
  textLimit: 4096,
  /** The longest media caption. @default 1024 */
  captionLimit: 1024,
  /** The largest media a download accepts (WhatsApp's document limit). @default 100 MiB */
  downloadBytesMax: 100 * 1024 * 1024,
} as const

/** The fields of a WhatsApp Web message that carry media, and the media type of each. */
export const WHATSAPP_MEDIA_MESSAGES = {
  imageMessage: 'image',
  videoMessage: 'video',
  audioMessage: 'audio',
  documentMessage: 'document',
  stickerMessage: 'sticker',
} as const satisfies Record<string, MediaType>

/** The fields of a WhatsApp Web message's content that carry its text or a press (Baileys' `proto.IMessage`, Evolution's webhook). */
export interface WhatsappWebContent {
  conversation?: string | null | undefined
  extendedTextMessage?: { text?: string | null | undefined } | null | undefined
  buttonsResponseMessage?: { selectedButtonId?: string | null | undefined } | null | undefined
  templateButtonReplyMessage?: { selectedId?: string | null | undefined } | null | undefined
  listResponseMessage?: { singleSelectReply?: { selectedRowId?: string | null | undefined } | null | undefined } | null | undefined
}

/** The id of the reply button, template button or list row a message presses, if it is a press. */
export function pressedIdOf(content: WhatsappWebContent): string | null | undefined {
  return (
    content.buttonsResponseMessage?.selectedButtonId ??
    content.templateButtonReplyMessage?.selectedId ??
    content.listResponseMessage?.singleSelectReply?.selectedRowId
  )
}

/** The text of a plain or extended text message. */
export function textOf(content: WhatsappWebContent): string | null | undefined {
  return content.conversation ?? content.extendedTextMessage?.text
}

/** A JID: a user, group, LID, broadcast or newsletter address on WhatsApp's own domains. */
export const WHATSAPP_JID: FieldCheck = stringField(/^[\w.:+-]+@(s\.whatsapp\.net|c\.us|g\.us|lid|broadcast|newsletter)$/, 128)

/** A message key: `{ remoteJid, fromMe, id, participant? }`. */
export const MESSAGE_KEY: FieldCheck = objectField(
  { remoteJid: WHATSAPP_JID, fromMe: booleanField, id: stringField(/^[A-Za-z0-9_-]+$/, 128), participant: WHATSAPP_JID },
  ['participant'],
)

/** The message key of a live token, with only the fields a key has. */
export function messageKeyOf(
  key: unknown,
): { remoteJid: string; fromMe: boolean; id: string; participant?: string } & { [k: string]: Json } {
  const participant = prop(key, 'participant')
  return {
    remoteJid: prop(key, 'remoteJid') as string,
    fromMe: prop(key, 'fromMe') === true,
    id: prop(key, 'id') as string,
    ...(typeof participant === 'string' && participant ? { participant } : {}),
  }
}
