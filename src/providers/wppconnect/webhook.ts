/**
 * The WPPConnect Server webhook. The server signs nothing, so the webhook URL given to
 * `start-session` carries a secret (`?token=…`): a request without it is refused with 401 before
 * its body is read. A message of this session is answered 200 only after the inbox journaled it;
 * with `readMessage` on, the server marks the chat read only then, and with `allUnreadOnStart` it
 * posts the messages left unread again when it starts.
 */
import type { InboundEvent } from '../../core/provider/provider.js'
import { jsonOf, postTo, urlSecret } from '../shared/webhook-checks.js'
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

/** The webhook route: a wrong path, method or URL secret is refused before the body is read. */
export function wppconnectWebhook(deps: WppconnectWebhookDeps): WebhookRoute {
  return {
    bodyBytesMax: WPPCONNECT_LIMITS.webhookBodyBytesMax,
    head: (head) => postTo(head, deps.path) ?? urlSecret(head, deps.secret),
    async handle(request) {
      const payload = jsonOf<WppconnectWebhook>(request.body)
      // One webhook URL may serve several sessions; this provider handles its own.
      const event = payload?.session === deps.session ? inboundOf(payload) : undefined
      // A rejected sink (the journal is down) throws: the server answers 500 and the message stays unread.
      if (event) await deps.sink(event)
      return { status: 200 }
    },
  }
}
