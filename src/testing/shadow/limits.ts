/** The bounds of a shadow replay: every loop, page and buffer of one is bounded by one of these. */
export const SHADOW_LIMITS = {
  /** Messages replayed when `limit` is not given: the most recent ones. */
  messagesDefault: 10_000,
  /** The largest `limit` a replay takes. */
  messagesMax: 1_000_000,
  /** Inbound records read per page while selecting. */
  pageSize: 500,
  /** Inbound records read while selecting, across every state asked for; the scan stops there. */
  scanMax: 2_000_000,
  /** Recorded sends read per message (`<id>:0` … `<id>:n`): a handler's sends past this are not compared. */
  sendsPerMessageMax: 100,
  /** Derived keys read per journal call while looking for a message's recorded sends. */
  sendReadBatch: 8,
  /** Parts of one split text followed (`key`, `key#2`, …). */
  partsMax: 64,
  /** How long one message's new code may run before it is reported failed. */
  messageTimeoutMs: 30_000,
} as const
