import { MESSAGING_PLATFORM_LIMITS } from '../shared/messaging-platform/limits.js'

/** Messenger Send API limits and the transport's defaults, named once. */
export const MESSENGER_LIMITS = {
  ...MESSAGING_PLATFORM_LIMITS,
  /** The longest text message. @default 2000 */
  textLimit: 2000,
} as const
