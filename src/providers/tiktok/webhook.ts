/**
 * The Business Messaging webhook. TikTok signs each POST in `TikTok-Signature: t=<seconds>,s=<hex
 * HMAC-SHA256 of "<t>.<raw body>" with the app's client secret>`: without the header a request is
 * refused with 401 before its body is read; a bad or stale signature is 401 once it is read, and
 * journals nothing. An `im_receive_msg` event (its `content` a JSON string: `conversation_id`,
 * `message_id`, `type`, `text`, `image`, `from_user`, `to_user`) is a message of its conversation;
 * the answer is 200 only after the inbox journaled it. Echoes of our sends (`im_send_msg`) and read
 * receipts are acknowledged without an event.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import type { InboundEvent, MediaRef } from '../../core/provider/provider.js'
import { isFresh } from '../shared/replay.js'
import { jsonOf, postTo, signatureHeader } from '../shared/webhook-checks.js'
import type { WebhookRoute } from '../shared/webhook-server.js'
import { TIKTOK_LIMITS } from './limits.js'

/** A webhook envelope. */
export interface TikTokWebhookEvent {
  event?: string
  user_openid?: string
  create_time?: number
  content?: string
}

/** The `content` of a message event. */
export interface TikTokMessageContent {
  conversation_id?: string
  message_id?: string
  timestamp?: number
  type?: string
  text?: { body?: string }
  image?: { media_id?: string }
  sticker?: { url?: string }
  from_user?: { id?: string }
  to_user?: { id?: string }
}

/** The header value TikTok sends for `body` at `seconds` (tests sign with it too). */
export function tiktokSignatureOf(body: Buffer | string, clientSecret: string, seconds: number): string {
  return `t=${seconds},s=${createHmac('sha256', clientSecret).update(`${seconds}.`).update(body).digest('hex')}`
}

/** Whether `header` signs `body` with `clientSecret` at a time within `toleranceMs` of `now`. */
export function validTikTokSignature(header: unknown, body: Buffer, clientSecret: string, now: number, toleranceMs: number): boolean {
  if (typeof header !== 'string') return false
  const parts = Object.fromEntries(header.split(',').map((part) => part.trim().split('=', 2) as [string, string]))
  const seconds = Number(parts.t)
  if (!Number.isInteger(seconds) || !/^[0-9a-f]{64}$/.test(parts.s ?? '')) return false
  if (!isFresh(seconds * 1000, now, toleranceMs)) return false
  return timingSafeEqual(Buffer.from(tiktokSignatureOf(body, clientSecret, seconds)), Buffer.from(`t=${seconds},s=${parts.s}`))
}

/** What the webhook route needs from its provider. */
export interface TikTokWebhookDeps {
  path: string
  clientSecret: string
  businessId: string
  toleranceMs: number
  now: () => number
  sink: (event: InboundEvent) => Promise<void>
}

/**
 * The webhook route. Its head refuses a wrong path or method, or no signature header (the
 * signature covers the body, so it is checked once the body is read).
 */
export function tiktokWebhook(deps: TikTokWebhookDeps): WebhookRoute {
  return {
    bodyBytesMax: TIKTOK_LIMITS.webhookBodyBytesMax,
    head: (head) => postTo(head, deps.path) ?? signatureHeader(head, 'tiktok-signature'),
    handle: async (request) => {
      if (!validTikTokSignature(request.headers['tiktok-signature'], request.body, deps.clientSecret, deps.now(), deps.toleranceMs))
        return { status: 401, body: 'invalid signature' }
      const envelope = jsonOf<TikTokWebhookEvent | null>(request.body)
      // A JSON `null` carries no envelope to read; it is refused as a body that is not one.
      if (envelope === null) return { status: 400, body: 'the body is not JSON' }
      const content = envelope.event === 'im_receive_msg' ? jsonOf<TikTokMessageContent>(envelope.content ?? '{}') : {}
      const event = envelope.user_openid === deps.businessId ? inboundOf(content, deps.businessId) : undefined
      // A rejected sink (the journal is down) throws: the server answers 500 and TikTok retries.
      if (event) await deps.sink(event)
      return { status: 200 }
    },
  }
}

function inboundOf(content: TikTokMessageContent, businessId: string): InboundEvent | undefined {
  const { conversation_id: chatId, message_id: id } = content
  if (!chatId || !id || content.to_user?.id !== businessId) return undefined
  const event: InboundEvent = { id, chatId, kind: 'message', ...(content.from_user?.id ? { from: content.from_user.id } : {}) }
  if (typeof content.timestamp === 'number') event.timestamp = content.timestamp
  if (content.text?.body) event.text = content.text.body
  let media: MediaRef | undefined
  if (content.image?.media_id) media = { type: 'image', token: { conversationId: chatId, messageId: id, mediaId: content.image.media_id } }
  else if (content.sticker?.url) media = { type: 'sticker', token: { stickerUrl: content.sticker.url } }
  if (media) event.media = media
  return event
}
