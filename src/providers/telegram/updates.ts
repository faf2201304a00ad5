/**
 * A Bot API update as an inbound event. The event id comes from `update_id`, which Telegram keeps
 * for a redelivered update (polling or webhook), so a redelivery maps to the same inbox record.
 */
import type { InboundEvent, MediaRef } from '../../core/provider/provider.js'

/** The parts of a Bot API `Update` the transport reads (the public Bot API document's names). */
export interface TelegramUpdate {
  /** The update's id: increasing, and the same when Telegram delivers the update again. */
  update_id: number
  /** A new message to the bot (private chat, group or supergroup). */
  message?: TelegramMessage
  /** A new version of a message the bot saw before, after the user edited it (not handled). */
  edited_message?: TelegramMessage
  /** A new post in a channel the bot is in. */
  channel_post?: TelegramMessage
  /** A tap on a button of an inline keyboard. */
  callback_query?: {
    /** The query's id, which `answerCallbackQuery` takes. */
    id: string
    /** The user who tapped the button. */
    from: {
      /** The user's Telegram id. */
      id: number
    }
    /** The `callback_data` the button was sent with. */
    data?: string
    /** The message the keyboard was attached to, when it is not too old. */
    message?: TelegramMessage
  }
}

/** A file the Bot API describes (`PhotoSize`, `Document`, `Video`, …). */
export interface TelegramFile {
  /** The id to download or resend the file with; valid only for the bot that received it. */
  file_id: string
  /** An id that stays the same over time and across bots, but cannot download the file. */
  file_unique_id?: string
  /** The file's size in bytes. */
  file_size?: number
  /** The file's MIME type, as the sender reported it. */
  mime_type?: string
  /** The file's name, as the sender gave it. */
  file_name?: string
}

/** The parts of a Bot API `Message` the transport reads. */
export interface TelegramMessage {
  /** The message's id, unique within its chat. */
  message_id: number
  /** When the message was sent: Unix time in seconds. */
  date: number
  /** The chat the message belongs to. */
  chat: {
    /** The chat's id (negative for groups and channels). */
    id: number
  }
  /** The sender; absent for messages sent to channels. */
  from?: {
    /** The sender's Telegram id. */
    id: number
  }
  /** The text of a text message. */
  text?: string
  /** The caption of a photo, video, document, audio or voice message. */
  caption?: string
  /** The photo in each of its sizes, smallest first. */
  photo?: TelegramFile[]
  /** A file sent as a document. */
  document?: TelegramFile
  /** A video. */
  video?: TelegramFile
  /** An audio file (music). */
  audio?: TelegramFile
  /** A voice note. */
  voice?: TelegramFile
  /** A sticker. */
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
