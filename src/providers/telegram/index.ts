/**
 * `botmesh/providers/telegram`: a Telegram transport on grammY (long polling or webhook), and the
 * Telegram media reference (the `file_id`). grammY loads only when the provider starts or sends.
 *
 * @module botmesh/providers/telegram
 */
export { TelegramProvider, type TelegramProviderOptions, type TelegramWebhookOptions } from './provider.js'
export { TELEGRAM_LIMITS } from './limits.js'
export { telegramMediaRefCodec, type TelegramMediaToken } from './media-ref.js'
export type { TelegramUpdate, TelegramMessage, TelegramFile } from './updates.js'
export * from '../shared/channel-exports.js'
