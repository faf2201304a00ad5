/**
 * The WPPConnect Server webhook. The server signs nothing, so the webhook URL given to
 * `start-session` carries a secret (`?token=…`): a request without it is refused with 401 before
 * its body is read. A message of this session is answered 200 only after the inbox journaled it;
 * with `readMessage` on, the server marks the chat read only then, and with `allUnreadOnStart` it
 * posts the messages left unread again when it starts.
 */
import type { InboundEvent } from '../../core/provider.js'
import type { WebhookHead, WebhookRequest, WebhookResponse } from '../shared/http-server.js'
import { sameSecret } from '../shared/secret.js'
import { inboundOf, type WppconnectWebhook } from './messages.js'

/** What the webhook handler needs from its provider. */
export interface WppconnectWebhookDeps {
  path: string
  secret: string
  session: string
  sink: (event: InboundEvent) => Promise<void>
}

/** The answer from the request line alone: a wrong path, method or URL secret; undefined reads the body. */
export function wppconnectWebhookHead(
  head: WebhookHead,
  deps: Pick<WppconnectWebhookDeps, 'path' | 'secret'>,
): WebhookResponse | undefined {
  if (head.url.pathname !== deps.path) return { status: 404 }
  if (head.method !== 'POST') return { status: 405 }
  if (!sameSecret(head.url.searchParams.get('token'), deps.secret)) return { status: 401, body: 'invalid token' }
  return undefined
}

/** Handles one webhook request. */
export async function handleWppconnectWebhook(request: WebhookRequest, deps: WppconnectWebhookDeps): Promise<WebhookResponse> {
  const early = wppconnectWebhookHead(request, deps)
  if (early) return early
  let payload: WppconnectWebhook
  try {
    payload = JSON.parse(request.body.toString('utf8')) as WppconnectWebhook
  } catch {
    return { status: 400, body: 'the body is not JSON' }
  }
  // One webhook URL may serve several sessions; this provider handles its own.
  const event = payload?.session === deps.session ? inboundOf(payload) : undefined
  // A rejected sink (the journal is down) throws: the server answers 500 and the message stays unread.
  if (event) await deps.sink(event)
  return { status: 200 }
}
