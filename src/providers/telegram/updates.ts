/**
 * A Bot API update as an inbound event. The event id comes from `update_id`, which Telegram keeps
 * for a redelivered update (polling or webhook), so a redelivery maps to the same inbox record.
 */
import type { InboundEvent, MediaRef } from '../../core/provider.js'

/** The parts of a Bot API `Update` the transport reads (the public Bot API document's names). */
export interface TelegramUpdate {
  update_id: number
  message?: TelegramMessage
  edited_message?: TelegramMessage
  channel_post?: TelegramMessage
  callback_query?: { id: string; from: { id: number }; data?: string; message?: TelegramMessage }
}

/** A file the Bot API describes (`PhotoSize`, `Document`, `Video`, …). */
export interface TelegramFile {
  file_id: string
  file_unique_id?: string
  file_size?: number
  mime_type?: string
  file_name?: string
}

/** The parts of a Bot API `Message` the transport reads. */
export interface TelegramMessage {
  message_id: number
  date: number
  chat: { id: number }
  from?: { id: number }
  text?: string
  caption?: string
  photo?: TelegramFile[]
  document?: TelegramFile
  video?: TelegramFile
  audio?: TelegramFile
  voice?: TelegramFile
  sticker?: TelegramFile
}

/** The id of the inbound event an update becomes. */
export function eventIdOf(updateId: number): string {
  return `tg:${updateId}`
}

/** The inbound event of an update, or undefined for updates a bot does not handle (edits, polls, …). */
export function inboundOf(update: TelegramUpdate): InboundEvent | undefined {
  const id = eventIdOf(update.update_id)
  const query = update.callback_query
  if (query) {
    const chat = query.message?.chat.id ?? query.from.id
    return {
      id,
      chatId: String(chat),
      kind: 'interaction',
      interaction: { id: query.data ?? query.id, data: { callbackQueryId: query.id } },
      from: String(query.from.id),
    }
  }
  const message = update.message ?? update.channel_post
  if (!message) return undefined
  const event: InboundEvent = { id, chatId: String(message.chat.id), kind: 'message', timestamp: message.date * 1000 }
  if (message.from) event.from = String(message.from.id)
  const text = message.text ?? message.caption
  if (text !== undefined) event.text = text
  const media = mediaOf(message)
  if (media) event.media = media
  return event
}

/** The media of a message: the largest photo size, or the document, video, audio, voice or sticker. */
function mediaOf(message: TelegramMessage): MediaRef | undefined {
  const described = (type: MediaRef['type'], file: TelegramFile): MediaRef => ({
    type,
    token: file,
    ...(file.mime_type ? { mimeType: file.mime_type } : {}),
    ...(file.file_name ? { fileName: file.file_name } : {}),
  })
  const photo = message.photo?.at(-1)
  if (photo) return { ...described('image', photo), mimeType: 'image/jpeg' }
  if (message.document) return described('document', message.document)
  if (message.video) return described('video', message.video)
  if (message.audio) return described('audio', message.audio)
  if (message.voice) return described('audio', message.voice)
  if (message.sticker) return described('sticker', message.sticker)
  return undefined
}
