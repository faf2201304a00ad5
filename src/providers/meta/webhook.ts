/**
 * The Cloud API webhook. GET is the subscription check (`hub.mode=subscribe`, the verify token,
 * echo `hub.challenge`). POST carries messages, signed with the app secret in
 * `X-Hub-Signature-256`: a request without that header is refused with 401 before its body is
 * read, a bad signature with 401 once it is read, and the answer is 200 only after the
 * inbox journaled every message of the payload. Anything else makes Meta deliver it again; the
 * messages already journaled are then recognised by their ids.
 */
import type { DeliveryReport, InboundEvent } from '../../core/provider.js'
import type { WebhookHead, WebhookRequest, WebhookResponse } from '../shared/http-server.js'
import { deliveryReportsOf, inboundEventsOf, type MetaWebhookPayload } from './messages.js'
import { validSignature, verifySubscription } from '../shared/hub-signature.js'

/** What the webhook handler needs from its provider. */
export interface MetaWebhookDeps {
  path: string
  verifyToken: string
  appSecret: string
  phoneNumberId: string
  sink: (event: InboundEvent) => Promise<void>
  /** Takes the statuses that echo our outbox keys (a durable bot's `sink.delivered`). */
  delivered?: ((report: DeliveryReport) => Promise<void>) | undefined
}

/**
 * The answer from the request line and headers alone: a wrong path or method, the subscription
 * check (a GET), or no signature header (the signature covers the body, so it is checked once the
 * body is read).
 */
export function metaWebhookHead(head: WebhookHead, deps: Pick<MetaWebhookDeps, 'path' | 'verifyToken'>): WebhookResponse | undefined {
  if (head.url.pathname !== deps.path) return { status: 404 }
  if (head.method === 'GET') return verifySubscription(head.url.searchParams, deps.verifyToken)
  if (head.method !== 'POST') return { status: 405 }
  if (typeof head.headers['x-hub-signature-256'] !== 'string') return { status: 401, body: 'invalid signature' }
  return undefined
}

/** Handles one webhook request. */
export async function handleMetaWebhook(request: WebhookRequest, deps: MetaWebhookDeps): Promise<WebhookResponse> {
  const early = metaWebhookHead(request, deps)
  if (early) return early
  if (!validSignature(request.headers['x-hub-signature-256'], request.body, deps.appSecret))
    return { status: 401, body: 'invalid signature' }
  let payload: MetaWebhookPayload
  try {
    payload = JSON.parse(request.body.toString('utf8')) as MetaWebhookPayload
  } catch {
    return { status: 400, body: 'the body is not JSON' }
  }
  // In order, so a chat's messages are journaled in the order Meta sent them. A sink that
  // rejects (the journal is down) throws: the server answers 500 and Meta retries.
  for (const event of inboundEventsOf(payload, deps.phoneNumberId)) await deps.sink(event)
  if (deps.delivered) for (const report of deliveryReportsOf(payload, deps.phoneNumberId)) await deps.delivered(report)
  return { status: 200, body: 'EVENT_RECEIVED' }
}
