/**
 * WhatsApp Web messages as inbound events. A message of a live `messages.upsert` (type `notify`)
 * from someone else is an event whose id is the message key's id and whose chat is its
 * `remoteJid`; the sender is the group participant, or the chat itself. Text comes from a plain or
 * extended text, or a media caption; a reply button, template button or list row pressed is an
 * interaction named by its id. Media stays the live message (the token `download` and the codec
 * take); status updates, the bot's own messages and messages without content are skipped.
 */
import type { WAMessage, WAMessageContent } from 'baileys'
import type { InboundEvent, MediaRef, MediaType } from '../../core/provider/provider.js'
import { pressedIdOf, textOf, WHATSAPP_MEDIA_MESSAGES } from '../shared/whatsapp.js'

/** Unwraps ephemeral, view-once and captioned-document wrappers (the library's `normalizeMessageContent`). */
export type NormalizeContent = (content: WAMessageContent | null | undefined) => WAMessageContent | undefined

/** The status broadcast, whose updates are not messages to the bot. */
const STATUS_BROADCAST = 'status@broadcast'

/** The inbound event of a message, or undefined when it is not one for the bot. */
export function inboundOf(message: WAMessage, normalize: NormalizeContent): InboundEvent | undefined {
  const { key } = message
  if (!key?.id || !key.remoteJid || key.fromMe || key.remoteJid === STATUS_BROADCAST) return undefined
  const content = normalize(message.message)
  if (!content) return undefined
  const event: InboundEvent = { id: key.id, chatId: key.remoteJid, from: key.participant || key.remoteJid, kind: 'message' }
  const seconds = secondsOf(message.messageTimestamp)
  if (Number.isFinite(seconds) && seconds > 0) event.timestamp = seconds * 1000
  const pressed = pressedIdOf(content)
  if (pressed) return { ...event, kind: 'interaction', interaction: { id: pressed } }
  const text = textOf(content)
  if (text) event.text = text
  for (const [field, type] of Object.entries(WHATSAPP_MEDIA_MESSAGES) as [keyof typeof WHATSAPP_MEDIA_MESSAGES, MediaType][]) {
    const media = content[field]
    if (!media) continue
    const ref: MediaRef = { type, token: message }
    if (media.mimetype) ref.mimeType = media.mimetype
    const fileName = (media as { fileName?: string | null }).fileName
    if (fileName) ref.fileName = fileName
    event.media = ref
    const caption = (media as { caption?: string | null }).caption
    if (caption) event.text = caption
    break
  }
  return event.text === undefined && !event.media ? undefined : event
}

/** A protobuf uint64 (a number, or a Long once decoded) as a number. */
function secondsOf(value: WAMessage['messageTimestamp']): number {
  if (typeof value === 'number') return value
  return value && typeof value === 'object' ? value.toNumber() : 0
}
