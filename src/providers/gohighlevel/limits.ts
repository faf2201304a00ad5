/** GoHighLevel (LeadConnector) API limits and the transport's defaults, named once. */
export const GOHIGHLEVEL_LIMITS = {
  /** The longest text of one message (an SMS of ten segments). @default 1600 */
  textLimit: 1600,
  /** Attachments in one message. @default 5 */
  attachmentsMax: 5,
  /** The largest media a download accepts. @default 25 MiB */
  downloadBytesMax: 25 * 1024 * 1024,
  /** The longest an API call or a download may take. @default 30 s */
  requestTimeoutMs: 30_000,
  /** How long a rate-limited send waits when the API names no time (its burst window). @default 10 s */
  rateLimitRetryAfterMsDefault: 10_000,
} as const

/** The API version the transport speaks (`Version` header). @default '2021-04-15' */
export const GOHIGHLEVEL_API_VERSION = '2021-04-15'
