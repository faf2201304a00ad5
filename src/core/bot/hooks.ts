/** before('send') and after('send') hooks. */
import type { OutboundContent } from '../provider/provider.js'

/** A send as a before('send') hook sees it; return it (or a changed copy) to rewrite the content. */
export interface OutgoingSend {
  /** The chat it goes to. */
  chatId: string
  /** What it sends. */
  content: OutboundContent
  /** The outbox key (with durability), or null. */
  key: string | null
}

/** A delivered send, as an after('send') hook sees it. */
export interface SentMessage {
  /** The chat it went to. */
  chatId: string
  /** What was sent. */
  content: OutboundContent
  /** The outbox key (with durability), or null. */
  key: string | null
  /** The provider's id of the sent message. */
  messageId: string
}

/** Runs before a send is journaled; returns the send to use instead, or nothing to keep it. */
export type BeforeSendHook = (send: OutgoingSend) => OutgoingSend | void | Promise<OutgoingSend | void>
/** Runs after the provider accepted a send. */
export type AfterSendHook = (sent: SentMessage) => void | Promise<void>

export class SendHooks {
  readonly before: BeforeSendHook[] = []
  readonly after: AfterSendHook[] = []

  /** Runs every before hook in order; each may rewrite the content. */
  async runBefore(send: OutgoingSend): Promise<OutboundContent> {
    let current = send
    for (const hook of this.before) current = (await hook(current)) ?? current
    return stripIdempotencyKey(current.content)
  }

  /** `runBefore`, answered at once (no promise) when no before('send') hook is registered. */
  applyBefore(send: OutgoingSend): OutboundContent | Promise<OutboundContent> {
    return this.before.length === 0 ? stripIdempotencyKey(send.content) : this.runBefore(send)
  }

  async runAfter(sent: SentMessage): Promise<void> {
    for (const hook of this.after) await hook(sent)
  }
}

/** The provider never sees idempotencyKey, even if it was put into the content. */
export function stripIdempotencyKey(content: OutboundContent): OutboundContent {
  if (typeof content === 'string' || !('idempotencyKey' in content)) return content
  const { idempotencyKey: _dropped, ...rest } = content as typeof content & { idempotencyKey?: string }
  return rest
}

/** The text of content, for the message log. */
export function textOf(content: OutboundContent): string | null {
  return typeof content === 'string' ? content : (content.text ?? content.caption ?? null)
}
