import { MESSAGING_PLATFORM_LIMITS } from '../shared/messaging-platform/limits.js'

/** Instagram Messaging API limits and the transport's defaults, named once. */
export const INSTAGRAM_LIMITS = {
  ...MESSAGING_PLATFORM_LIMITS,
  /** The longest text message (Instagram counts 1000 bytes of UTF-8; a longer text is refused by the API). @default 1000 */
  textLimit: 1000,
} as const
