/**
 * The HighLevel webhook: each POST must carry HighLevel's signature of the raw body (401 before the
 * body is read otherwise); an `InboundMessage` of this location and message type is answered 200
 * only after the inbox journaled it. Any other answer leaves it to HighLevel's retry; a message
 * already journaled is then recognised by its id.
 */
import type { KeyObject } from 'node:crypto'
import type { InboundEvent } from '../../core/provider.js'
import type { WebhookRequest, WebhookResponse } from '../shared/http-server.js'
import { inboundOf, type GoHighLevelWebhook } from './messages.js'
import { signatureHeaderOf, validSignature } from './signature.js'

/** What the webhook handler needs from its provider. */
export interface GoHighLevelWebhookDeps {
  path: string
  publicKey: KeyObject
  locationId: string
  messageType: string
  sink: (event: InboundEvent) => Promise<void>
}

/** Handles one webhook request. */
export async function handleGoHighLevelWebhook(request: WebhookRequest, deps: GoHighLevelWebhookDeps): Promise<WebhookResponse> {
  if (request.url.pathname !== deps.path) return { status: 404 }
  if (request.method !== 'POST') return { status: 405 }
  if (!validSignature(request.headers[signatureHeaderOf(deps.publicKey)], request.body, deps.publicKey))
    return { status: 401, body: 'invalid signature' }
  let webhook: GoHighLevelWebhook
  try {
    webhook = JSON.parse(request.body.toString('utf8')) as GoHighLevelWebhook
  } catch {
    return { status: 400, body: 'the body is not JSON' }
  }
  const event = inboundOf(webhook, deps.locationId, deps.messageType)
  // A rejected sink (the journal is down) throws: the server answers 500 and HighLevel retries.
  if (event) await deps.sink(event)
  return { status: 200 }
}
