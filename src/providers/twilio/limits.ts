/** Twilio Programmable Messaging limits and the transport's defaults, named once. */
export const TWILIO_LIMITS = {
  /** The longest message body (SMS and WhatsApp): Twilio refuses longer ones (error 21617). @default 1600 */
  textLimit: 1600,
  /** The largest media a download accepts (WhatsApp's 16 MB media limit). @default 16 MiB */
  downloadBytesMax: 16 * 1024 * 1024,
  /** The longest a REST call or a media download may take. @default 30 s */
  requestTimeoutMs: 30_000,
  /** How long a rate-limited send waits when Twilio names no time (it does not, as a rule). @default 1 s */
  rateLimitRetryAfterMsDefault: 1000,
  /** The largest webhook body accepted (a form of at most 10 media URLs and a 1600-character body). @default 64 KiB */
  webhookBodyBytesMax: 64 * 1024,
} as const

/** The REST API origin. @default 'https://api.twilio.com' */
export const TWILIO_API_ORIGIN_DEFAULT = 'https://api.twilio.com'
