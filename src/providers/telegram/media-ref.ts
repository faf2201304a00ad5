/**
 * Telegram media references: the journal keeps the `file_id`. A `file_id` only works with the bot
 * token that received it; the token itself is added at download time (`getFile`), never journaled.
 */
import { defineMediaRefCodec, type MediaRefCodec } from '../shared/codec.js'
import { objectProblem, prop, stringField } from '../shared/shape.js'

/** The token a stored reference rebuilds (a live update's file object has more fields). */
export interface TelegramMediaToken {
  /** The Bot API's `file_id`, valid only with the bot token that received it (`getFile` takes it). */
  file_id: string
}

/** Bot API file ids are base64url text. */
const FILE_ID = stringField(/^[A-Za-z0-9_-]+$/)

/** The Telegram media-reference codec. */
export function telegramMediaRefCodec(): MediaRefCodec<TelegramMediaToken> {
  return defineMediaRefCodec<{ fileId: string }, TelegramMediaToken>({
    channel: 'telegram',
    pick(token) {
      const fileId = typeof token === 'string' ? token : prop(token, 'file_id')
      return typeof fileId === 'string' ? { fileId } : undefined
    },
    problem: (data) => objectProblem(data, { fileId: FILE_ID }),
    token: (data) => ({ file_id: data.fileId }),
  })
}
