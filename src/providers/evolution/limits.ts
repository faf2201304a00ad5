import { WHATSAPP_LIMITS } from '../shared/whatsapp.js'

/** Evolution API limits and the transport's defaults, named once. */
export const EVOLUTION_LIMITS = {
  ...WHATSAPP_LIMITS,
  /** Reply buttons in one message (WhatsApp's limit). @default 3 */
  buttonsMax: 3,
  /** The longest an API call or a download may take. @default 30 s */
  requestTimeoutMs: 30_000,
  /** How long a rate-limited send waits when no `Retry-After` names a time. @default 10 s */
  rateLimitRetryAfterMsDefault: 10_000,
  /** The largest webhook body accepted (a message may carry its media inline as base64). @default 16 MiB */
  webhookBodyBytesMax: 16 * 1024 * 1024,
  /** How far a webhook token's `iat`/`exp` may be off this machine's clock. @default 60 s */
  webhookClockSkewMs: 60_000,
  /** The longest validity (`exp` - `iat`) a webhook token may have; Evolution issues ten minutes. @default 10 min */
  webhookTokenLifetimeMaxMs: 10 * 60_000,
} as const
