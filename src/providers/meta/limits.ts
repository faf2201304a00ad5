import { WHATSAPP_LIMITS } from '../shared/whatsapp.js'

/** WhatsApp Cloud API limits and the transport's defaults, named once. */
export const META_LIMITS = {
  ...WHATSAPP_LIMITS,
  /** Reply buttons in one interactive message. @default 3 */
  buttonsMax: 3,
  /** The longest reply button title. @default 20 */
  buttonTitleMax: 20,
  /** The longest a Graph API call or a media download may take. @default 30 s */
  requestTimeoutMs: 30_000,
  /** How long a rate-limited send waits when the Graph API names no time. @default 60 s */
  rateLimitRetryAfterMsDefault: 60_000,
  /** The largest webhook body accepted (Meta batches up to 1000 changes). @default 3 MiB */
  webhookBodyBytesMax: 3 * 1024 * 1024,
} as const

/** The Graph API version the transport speaks. @default 'v21.0' */
export const GRAPH_API_VERSION_DEFAULT = 'v21.0'
