/** The Messenger Platform's limits (Messenger, Instagram) and the transport's defaults; each channel's limits start from them. */
export const MESSAGING_PLATFORM_LIMITS = {
  /** Quick replies on one message (the buttons). @default 13 */
  quickRepliesMax: 13,
  /** The longest quick reply title. @default 20 */
  quickReplyTitleMax: 20,
  /** The largest attachment a download accepts (the platform's 25 MB attachment limit). @default 25 MiB */
  downloadBytesMax: 25 * 1024 * 1024,
  /** The longest a Send API call or a download may take. @default 30 s */
  requestTimeoutMs: 30_000,
  /** How long a rate-limited send waits when the Graph API names no time. @default 60 s */
  rateLimitRetryAfterMsDefault: 60_000,
} as const
