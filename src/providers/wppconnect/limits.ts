import { WHATSAPP_LIMITS } from '../shared/whatsapp.js'

/** WPPConnect Server limits and the transport's defaults, named once. */
export const WPPCONNECT_LIMITS = {
  ...WHATSAPP_LIMITS,
  /** Rows of the list message that carries buttons. @default 10 */
  buttonsMax: 10,
  /** The longest an API call or a download may take. @default 30 s */
  requestTimeoutMs: 30_000,
  /** How long a rate-limited send waits when no `Retry-After` names a time. @default 10 s */
  rateLimitRetryAfterMsDefault: 10_000,
  /** The largest webhook body accepted (with `autoDownload` a message carries its media as base64). @default 16 MiB */
  webhookBodyBytesMax: 16 * 1024 * 1024,
} as const
