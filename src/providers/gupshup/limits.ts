/** Gupshup WhatsApp API limits and the transport's defaults, named once. */
export const GUPSHUP_LIMITS = {
  /** The longest text message body. @default 4096 */
  textLimit: 4096,
  /** The longest media caption. @default 1024 */
  captionLimit: 1024,
  /** Quick-reply buttons in one message. @default 3 */
  buttonsMax: 3,
  /** The longest quick-reply button title. @default 20 */
  buttonTitleMax: 20,
  /** The largest media a download accepts (WhatsApp's document limit). @default 100 MiB */
  downloadBytesMax: 100 * 1024 * 1024,
  /** The longest an API call or a download may take. @default 30 s */
  requestTimeoutMs: 30_000,
  /** How long a rate-limited send waits when no `Retry-After` names a time. @default 1 s */
  rateLimitRetryAfterMsDefault: 1_000,
} as const
