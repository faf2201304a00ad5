/**
 * `botmesh/providers/telegram`: the Telegram media reference (the `file_id`).
 */
export { telegramMediaRefCodec, type TelegramMediaToken } from './media-ref.js'
export type { MediaRefCodec } from '../shared/codec.js'
export { MediaRefInvalidError } from '../shared/errors.js'
