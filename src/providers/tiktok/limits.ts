/** TikTok Business Messaging limits and the transport's defaults, named once. */
export const TIKTOK_LIMITS = {
  /** The longest text message. @default 6000 */
  textLimit: 6000,
  /** The largest media a download accepts. @default 20 MiB */
  downloadBytesMax: 20 * 1024 * 1024,
  /** The longest a Business API call or a download may take. @default 30 s */
  requestTimeoutMs: 30_000,
  /** How long a rate-limited send waits (the API names no time). @default 1 s */
  rateLimitRetryAfterMsDefault: 1000,
  /** How far a webhook's signed timestamp may be from now before it is refused as a replay. @default 5 min */
  signatureToleranceMs: 5 * 60_000,
  /** The largest webhook body accepted. @default 256 KiB */
  webhookBodyBytesMax: 256 * 1024,
} as const

/** The Business API root. @default 'https://business-api.tiktok.com' */
export const TIKTOK_API_DEFAULT = 'https://business-api.tiktok.com'
