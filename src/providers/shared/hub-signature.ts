/**
 * The webhook checks of Meta's platforms (WhatsApp Cloud, Messenger, Instagram). Meta signs each
 * POST with the app secret in `X-Hub-Signature-256` (`sha256=<hex HMAC-SHA256 of the raw body>`),
 * and a request without a valid signature is refused before its body is parsed. A GET is the
 * subscription check: `hub.mode=subscribe` with your verify token, answered with `hub.challenge`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import type { WebhookHead, WebhookResponse } from './http-server.js'
import { jsonOf, signatureHeader } from './webhook-checks.js'
import type { WebhookRoute } from './webhook-server.js'

/** What a channel on Meta's platforms gives its webhook route. */
export interface HubWebhookOptions<Payload> {
  path: string
  verifyToken: string
  appSecret: string
  /** The largest body the channel takes. @default WEBHOOK_SERVER_LIMITS.bodyBytesMax (1 MiB) */
  bodyBytesMax?: number
  /**
   * Hands a verified payload's events to the sink, in order, so a chat's messages are journaled
   * as Meta sent them. A sink that rejects (the journal is down) throws: the server answers 500
   * and Meta delivers the payload again; what was already journaled is recognised by its id.
   */
  take(payload: Payload): Promise<void>
}

/**
 * The webhook route of a channel on Meta's platforms. Its head answers the subscription check (a
 * GET), and refuses a wrong path or method or a POST without a signature header; the signature
 * is verified once the body is read, before it is parsed, and the answer is 200 only once `take`
 * resolved.
 */
export function hubWebhook<Payload>(options: HubWebhookOptions<Payload>): WebhookRoute {
  return {
    bodyBytesMax: options.bodyBytesMax,
    head: (head) => hubHead(head, options),
    handle: async (request) => {
      if (!validSignature(request.headers['x-hub-signature-256'], request.body, options.appSecret))
        return { status: 401, body: 'invalid signature' }
      await options.take(jsonOf<Payload>(request.body))
      return { status: 200, body: 'EVENT_RECEIVED' }
    },
  }
}

function hubHead(head: WebhookHead, options: Pick<HubWebhookOptions<unknown>, 'path' | 'verifyToken'>): WebhookResponse | undefined {
  if (head.url.pathname !== options.path) return { status: 404 }
  if (head.method === 'GET') return verifySubscription(head.url.searchParams, options.verifyToken)
  if (head.method !== 'POST') return { status: 405 }
  return signatureHeader(head, 'x-hub-signature-256')
}

/** The header value for `body` under `appSecret` (what Meta sends; tests sign with it too). */
export function signatureOf(body: Buffer | string, appSecret: string): string {
  return `sha256=${createHmac('sha256', appSecret).update(body).digest('hex')}`
}

/** Whether `header` is the signature of `body` under `appSecret` (constant time). */
export function validSignature(header: string | string[] | undefined, body: Buffer, appSecret: string): boolean {
  if (typeof header !== 'string' || !/^sha256=[0-9a-f]{64}$/.test(header)) return false
  return timingSafeEqual(Buffer.from(header), Buffer.from(signatureOf(body, appSecret)))
}

/** Answers the subscription check: the challenge with the verify token, 403 otherwise. */
export function verifySubscription(params: URLSearchParams, verifyToken: string): WebhookResponse {
  const token = Buffer.from(params.get('hub.verify_token') ?? '')
  const expected = Buffer.from(verifyToken)
  const matches = token.length === expected.length && timingSafeEqual(token, expected)
  if (params.get('hub.mode') !== 'subscribe' || !matches) return { status: 403 }
  return { status: 200, body: params.get('hub.challenge') ?? '' }
}
