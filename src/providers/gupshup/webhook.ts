/**
 * The Gupshup callback. Gupshup signs nothing, so the callback URL set for the app carries a secret
 * (`?token=…`): a request without it is refused with 401 before its body is read. A message of
 * this app is answered 200 only after the inbox journaled it; any other answer leaves it to
 * Gupshup's retry.
 */
import type { InboundEvent } from '../../core/provider.js'
import type { WebhookHead, WebhookRequest, WebhookResponse } from '../shared/http-server.js'
import { sameSecret } from '../shared/secret.js'
import { inboundOf, type GupshupCallback } from './messages.js'

/** What the callback handler needs from its provider. */
export interface GupshupWebhookDeps {
  path: string
  secret: string
  app: string
  sink: (event: InboundEvent) => Promise<void>
}

/** The answer from the request line alone: a wrong path, method or URL secret; undefined reads the body. */
export function gupshupWebhookHead(head: WebhookHead, deps: Pick<GupshupWebhookDeps, 'path' | 'secret'>): WebhookResponse | undefined {
  if (head.url.pathname !== deps.path) return { status: 404 }
  if (head.method !== 'POST') return { status: 405 }
  if (!sameSecret(head.url.searchParams.get('token'), deps.secret)) return { status: 401, body: 'invalid token' }
  return undefined
}

/** Handles one callback request. */
export async function handleGupshupWebhook(request: WebhookRequest, deps: GupshupWebhookDeps): Promise<WebhookResponse> {
  const early = gupshupWebhookHead(request, deps)
  if (early) return early
  let callback: GupshupCallback
  try {
    callback = JSON.parse(request.body.toString('utf8')) as GupshupCallback
  } catch {
    return { status: 400, body: 'the body is not JSON' }
  }
  const event = inboundOf(callback, deps.app)
  // A rejected sink (the journal is down) throws: the server answers 500.
  if (event) await deps.sink(event)
  return { status: 200 }
}
