/**
 * The Messenger Platform webhook (Messenger, Instagram). GET is the subscription check; POST is
 * signed with the app secret in `X-Hub-Signature-256` over the body: a request without the header
 * is refused with 401 before its body is read, a bad signature with 401 once it is read (and
 * before it is parsed), and the answer is 200 only after the inbox journaled every message of the
 * payload. Anything else makes Meta deliver it again; messages already journaled are then
 * recognised by their `mid`.
 */
import type { InboundEvent } from '../../../core/provider/provider.js'
import { hubWebhook } from '../hub-signature.js'
import type { WebhookRoute } from '../webhook-server.js'
import { inboundEventsOf, type MessagingWebhookPayload } from './events.js'

/** What the webhook route needs from its provider. */
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

/** The webhook route: the messages of the channel's `object` addressed to its account, to the sink. */
export function messagingWebhook(deps: MessagingWebhookDeps): WebhookRoute {
  return hubWebhook<MessagingWebhookPayload>({
    ...deps,
    take: async (payload) => {
      for (const event of inboundEventsOf(payload, deps.object, deps.accountId)) await deps.sink(event)
    },
  })
}
