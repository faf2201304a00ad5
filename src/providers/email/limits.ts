/** Email limits and the transport's defaults, named once. */
export const EMAIL_LIMITS = {
  /** The longest text of one email (longer texts are split by the bot). @default 100,000 characters */
  textLimit: 100_000,
  /** How often the mailbox is searched for unseen mail when the server announced nothing. @default 30 s */
  pollMs: 30_000,
  /** The longest wait after a failed mailbox connection or a journal that refused a message. @default 30 s */
  pollBackoffMaxMs: 30_000,
  /** The first wait after a failed mailbox connection. @default 500 ms */
  pollBackoffBaseMs: 500,
  /** Unseen messages taken in one pass. @default 100 */
  pollBatchMax: 100,
  /** How long a send refused for its rate waits (SMTP names no time). @default 60 s */
  rateLimitRetryAfterMs: 60_000,
  /**
   * The largest inbound message taken, by the size the server reports before it is fetched (a
   * 25 MiB attachment is about 34 MiB once base64-encoded). @default 40 MiB
   */
  messageBytesMax: 40 * 1024 * 1024,
  /** The largest attachment a download accepts. @default 25 MiB */
  downloadBytesMax: 25 * 1024 * 1024,
} as const
