/**
 * The HighLevel webhook: each POST must carry HighLevel's signature of the raw body: without the
 * signature header it is refused with 401 before its body is read; with a wrong signature, with 401
 * once the body is read and before it is parsed; with a `timestamp` more than 5 minutes off the
 * clock, or a `webhookId` already taken (a replay), with 401 too. An `InboundMessage` of this location and message
 * type is answered 200 only after the inbox journaled it. Any other answer leaves it to HighLevel's retry; a message
 * already journaled is then recognised by its id.
 */
import type { KeyObject } from 'node:crypto'
import type { InboundEvent } from '../../core/provider/provider.js'
import type { ReplayCache } from '../shared/replay.js'
import { jsonOf, postTo, signatureHeader } from '../shared/webhook-checks.js'
import type { WebhookRoute } from '../shared/webhook-server.js'
import { inboundOf, type GoHighLevelWebhook } from './messages.js'
import { freshWebhook, replayKeyOf, signatureHeaderOf, validSignature } from './signature.js'

/** What the webhook route needs from its provider. */
export interface GoHighLevelWebhookDeps {
  path: string
  publicKey: KeyObject
  locationId: string
  messageType: string
  /** The clock (ms since the epoch). */
  now: () => number
  /** The webhook ids (or signatures) already taken. */
  replays: ReplayCache
  sink: (event: InboundEvent) => Promise<void>
}

/**
 * The webhook route. Its head refuses a wrong path or method, or no signature header (the
 * signature covers the body, so it is checked once the body is read).
 */
export function gohighlevelWebhook(deps: GoHighLevelWebhookDeps): WebhookRoute {
  const header = signatureHeaderOf(deps.publicKey)
  return {
    head: (head) => postTo(head, deps.path) ?? signatureHeader(head, header),
    handle: async (request) => {
      const signature = request.headers[header] as string
      if (!validSignature(signature, request.body, deps.publicKey)) return { status: 401, body: 'invalid signature' }
      const webhook = jsonOf<GoHighLevelWebhook>(request.body)
      if (typeof webhook !== 'object' || webhook === null) return { status: 400, body: 'the body is not a JSON object' }
      if (!freshWebhook(webhook, signature, deps.replays, deps.now())) return { status: 401, body: 'stale or replayed webhook' }
      const event = inboundOf(webhook, deps.locationId, deps.messageType)
      // A rejected sink (the journal is down) throws: the server answers 500 and HighLevel retries, with
      // the same webhookId, so it is forgotten.
      if (event)
        await deps.sink(event).catch((error: unknown) => {
          deps.replays.forget(replayKeyOf(webhook, signature))
          throw error
        })
      return { status: 200 }
    },
  }
}
