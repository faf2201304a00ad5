/**
 * The Messenger Platform webhook (Messenger, Instagram). GET is the subscription check; POST is
 * signed with the app secret in `X-Hub-Signature-256` over the body: a request without the header
 * is refused with 401 before its body is read, a bad signature with 401 once it is read (and
 * before it is parsed), and the answer is 200 only after the inbox journaled every message of the
 * payload. Anything else makes Meta deliver it again; messages already journaled are then
 * recognised by their `mid`.
 */
import type { InboundEvent } from '../../../core/provider.js'
import type { WebhookHead, WebhookRequest, WebhookResponse } from '../http-server.js'
import { validSignature, verifySubscription } from '../hub-signature.js'
import { inboundEventsOf, type MessagingWebhookPayload } from './events.js'

/** What the webhook handler needs from its provider. */
export interface MessagingWebhookDeps {
  path: string
  verifyToken: string
  appSecret: string
  /** The webhook `object` of the channel: 'page' (Messenger) or 'instagram'. */
  object: string
  /** The page or Instagram account id messages are addressed to. */
  accountId: string
  sink: (event: InboundEvent) => Promise<void>
}

/**
 * The answer from the request line and headers alone: a wrong path or method, the subscription
 * check (a GET), or no signature header (the signature covers the body, so it is checked once the
 * body is read).
 */
export function messagingWebhookHead(
  head: WebhookHead,
  deps: Pick<MessagingWebhookDeps, 'path' | 'verifyToken'>,
): WebhookResponse | undefined {
  if (head.url.pathname !== deps.path) return { status: 404 }
  if (head.method === 'GET') return verifySubscription(head.url.searchParams, deps.verifyToken)
  if (head.method !== 'POST') return { status: 405 }
  if (typeof head.headers['x-hub-signature-256'] !== 'string') return { status: 401, body: 'invalid signature' }
  return undefined
}

/** Handles one webhook request. */
export async function handleMessagingWebhook(request: WebhookRequest, deps: MessagingWebhookDeps): Promise<WebhookResponse> {
  const early = messagingWebhookHead(request, deps)
  if (early) return early
  if (!validSignature(request.headers['x-hub-signature-256'], request.body, deps.appSecret))
    return { status: 401, body: 'invalid signature' }
  let payload: MessagingWebhookPayload
  try {
    payload = JSON.parse(request.body.toString('utf8')) as MessagingWebhookPayload
  } catch {
    return { status: 400, body: 'the body is not JSON' }
  }
  // In order, so a chat's messages are journaled as Meta sent them. A sink that rejects (the
  // journal is down) throws: the server answers 500 and Meta retries.
  for (const event of inboundEventsOf(payload, deps.object, deps.accountId)) await deps.sink(event)
  return { status: 200, body: 'EVENT_RECEIVED' }
}
