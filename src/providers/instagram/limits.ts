/** Instagram Messaging API limits and the transport's defaults, named once. */
export const INSTAGRAM_LIMITS = {
  /** The longest text message (Instagram counts 1000 bytes of UTF-8; a longer text is refused by the API). @default 1000 */
  textLimit: 1000,
  /** Quick replies on one message (the buttons). @default 13 */
  quickRepliesMax: 13,
  /** The longest quick reply title. @default 20 */
  quickReplyTitleMax: 20,
  /** The largest attachment a download accepts (Instagram's 25 MB video limit). @default 25 MiB */
  downloadBytesMax: 25 * 1024 * 1024,
  /** The longest a Send API call or a download may take. @default 30 s */
  requestTimeoutMs: 30_000,
  /** How long a rate-limited send waits when the Graph API names no time. @default 60 s */
  rateLimitRetryAfterMsDefault: 60_000,
} as const
