import { WHATSAPP_LIMITS } from '../shared/whatsapp.js'

/** WhatsApp Web limits and the transport's defaults, named once. */
export const BAILEYS_LIMITS = {
  ...WHATSAPP_LIMITS,
  /** The longest a media download (re-upload request included) may take. @default 60 s */
  downloadTimeoutMs: 60_000,
  /** How long a send refused with `rate-overlimit` waits (WhatsApp names no time). @default 30 s */
  rateLimitRetryAfterMs: 30_000,
  /** How long `start()` waits for the connection to open (or a QR code to pair) before it resolves anyway. @default 5 s */
  startWaitMs: 5_000,
  /** The first wait before reconnecting a dropped connection. @default 1 s */
  reconnectBaseMs: 1_000,
  /** The longest wait between reconnects. @default 60 s */
  reconnectMaxMs: 60_000,
  /** How many times a message the journal refused is handed to it again (WhatsApp does not deliver it again). @default 5 */
  admitAttemptsMax: 5,
  /** The first wait before handing a refused message to the journal again; it doubles each time. @default 1 s */
  admitRetryBaseMs: 1_000,
} as const
