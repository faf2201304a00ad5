/** Telegram's limits and the transport's defaults, named once. */
export const TELEGRAM_LIMITS = {
  /** The longest text message the Bot API accepts. @default 4096 */
  textLimit: 4096,
  /** The longest media caption the Bot API accepts. @default 1024 */
  captionLimit: 1024,
  /** The largest file `getFile` lets a bot download (20 MB). @default 20 MiB */
  downloadBytesMax: 20 * 1024 * 1024,
  /** How long one `getUpdates` call waits for updates, in seconds. @default 25 */
  pollTimeoutSeconds: 25,
  /** Updates fetched by one `getUpdates` call (the Bot API's maximum). @default 100 */
  pollBatchMax: 100,
  /** The longest wait after a failed `getUpdates` or a journal that refused an update. @default 30 s */
  pollBackoffMaxMs: 30_000,
  /** The first wait after a failed `getUpdates`. @default 500 ms */
  pollBackoffBaseMs: 500,
  /** The longest a send, a `getFile` or a download may take. @default 60 s */
  requestTimeoutMs: 60_000,
  /** The longest `callback_data` of an inline button, in bytes. @default 64 */
  callbackDataBytesMax: 64,
} as const
