/**
 * The Gupshup callback. Gupshup signs nothing, so the callback URL set for the app carries a secret
 * (`?token=…`): a request without it is refused with 401 before its body is read. A message of
 * this app is answered 200 only after the inbox journaled it; any other answer leaves it to
 * Gupshup's retry.
 */
import type { InboundEvent } from '../../core/provider/provider.js'
import { urlSecretWebhook } from '../shared/webhook-checks.js'
import type { WebhookRoute } from '../shared/webhook-server.js'
import { inboundOf, type GupshupCallback } from './messages.js'

/** What the callback route needs from its provider. */
export interface GupshupWebhookDeps {
  path: string
  secret: string
  app: string
  sink: (event: InboundEvent) => Promise<void>
}

/** The callback route: a wrong path, method or URL secret is refused before the body is read; only this app's messages are taken. */
export function gupshupWebhook(deps: GupshupWebhookDeps): WebhookRoute {
  return urlSecretWebhook<GupshupCallback>({ ...deps, eventOf: (callback) => inboundOf(callback, deps.app) })
}
