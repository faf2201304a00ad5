import { WHATSAPP_LIMITS } from '../shared/whatsapp.js'

/** Gupshup WhatsApp API limits and the transport's defaults, named once. */
export const GUPSHUP_LIMITS = {
  ...WHATSAPP_LIMITS,
  /** Quick-reply buttons in one message. @default 3 */
  buttonsMax: 3,
  /** The longest quick-reply button title. @default 20 */
  buttonTitleMax: 20,
  /** The longest an API call or a download may take. @default 30 s */
  requestTimeoutMs: 30_000,
  /** How long a rate-limited send waits when no `Retry-After` names a time. @default 1 s */
  rateLimitRetryAfterMsDefault: 1_000,
} as const
