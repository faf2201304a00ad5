/**
 * `botmesh/telegram`: a durable Telegram bot on SQLite from one import path — the bot, the matchers,
 * the Telegram provider and the SQLite store, whose journals `journaledIn` picks up.
 *
 * ```ts
 * import { Bot, SQLiteStore, TEXT, TelegramProvider, journaledIn } from 'botmesh/telegram'
 * const provider = new TelegramProvider({ token: process.env.TELEGRAM_BOT_TOKEN! })
 * const bot = new Bot({ provider, ...journaledIn(new SQLiteStore({ file: './data/bot.db' })) })
 * bot.when(TEXT, (ctx) => ctx.reply(ctx.message.text))
 * await bot.start()
 * ```
 *
 * @module botmesh/telegram
 */
export {
  Bot,
  journaledIn,
  flow,
  loadMediaOf,
  TEXT,
  IMAGE,
  VIDEO,
  AUDIO,
  DOCUMENT,
  INTERACTION,
  ANY,
  text,
  type BotConfig,
  type Context,
  type Message,
} from './core/index.js'
export { SQLiteStore, type SQLiteStoreOptions } from './backends/sqlite/index.js'
export { TelegramProvider, type TelegramProviderOptions } from './providers/telegram/index.js'
