/**
 * The WPPConnect Server webhook. The server signs nothing, so the webhook URL given to
 * `start-session` carries a secret (`?token=…`): a request without it is refused with 401 before
 * its body is read. A message of this session is answered 200 only after the inbox journaled it;
 * with `readMessage` on, the server marks the chat read only then, and with `allUnreadOnStart` it
 * posts the messages left unread again when it starts.
 */
import type { InboundEvent } from '../../core/provider/provider.js'
import { urlSecretWebhook } from '../shared/webhook-checks.js'
import type { WebhookRoute } from '../shared/webhook-server.js'
import { WPPCONNECT_LIMITS } from './limits.js'
import { inboundOf, type WppconnectWebhook } from './messages.js'

/** What the webhook route needs from its provider. */
export interface WppconnectWebhookDeps {
  path: string
  secret: string
  session: string
  sink: (event: InboundEvent) => Promise<void>
}

/**
 * The webhook route: a wrong path, method or URL secret is refused before the body is read. One
 * webhook URL may serve several sessions; this provider takes its own session's messages. The 200
 * comes only after the journal, so with `readMessage` on the message stays unread until then.
 */
export function wppconnectWebhook(deps: WppconnectWebhookDeps): WebhookRoute {
  return urlSecretWebhook<WppconnectWebhook>({
    ...deps,
    bodyBytesMax: WPPCONNECT_LIMITS.webhookBodyBytesMax,
    eventOf: (payload) => (payload?.session === deps.session ? inboundOf(payload) : undefined),
  })
}
