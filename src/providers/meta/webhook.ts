/**
 * The Cloud API webhook. GET is the subscription check (`hub.mode=subscribe`, the verify token,
 * echo `hub.challenge`). POST carries messages, signed with the app secret in
 * `X-Hub-Signature-256`: a request without that header is refused with 401 before its body is
 * read, a bad signature with 401 once it is read, and the answer is 200 only after the
 * inbox journaled every message of the payload. Anything else makes Meta deliver it again; the
 * messages already journaled are then recognised by their ids.
 */
import type { DeliveryReport, InboundEvent } from '../../core/provider/provider.js'
import { hubWebhook } from '../shared/hub-signature.js'
import type { WebhookRoute } from '../shared/webhook-server.js'
import { META_LIMITS } from './limits.js'
import { deliveryReportsOf, inboundEventsOf, type MetaWebhookPayload } from './messages.js'

/** What the webhook route needs from its provider. */
export interface MetaWebhookDeps {
  path: string
  verifyToken: string
  appSecret: string
  phoneNumberId: string
  sink: (event: InboundEvent) => Promise<void>
  /** Takes the statuses that echo our outbox keys (a durable bot's `sink.delivered`). */
  delivered?: ((report: DeliveryReport) => Promise<void>) | undefined
}

/** The webhook route: the messages of this phone number to the sink, then the statuses of our sends to `delivered`. */
export function metaWebhook(deps: MetaWebhookDeps): WebhookRoute {
  return hubWebhook<MetaWebhookPayload>({
    ...deps,
    bodyBytesMax: META_LIMITS.webhookBodyBytesMax,
    take: async (payload) => {
      for (const event of inboundEventsOf(payload, deps.phoneNumberId)) await deps.sink(event)
      if (deps.delivered) for (const report of deliveryReportsOf(payload, deps.phoneNumberId)) await deps.delivered(report)
    },
  })
}
