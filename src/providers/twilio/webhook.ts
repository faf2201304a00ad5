/**
 * The incoming-message webhook. Twilio signs each request with the auth token
 * (`X-Twilio-Signature`, over the URL it called and the form parameters): without the header a
 * request is refused with 401 before its body is read; a bad signature is 401 once it is read, and
 * journals nothing. The answer (an empty TwiML `<Response/>`, so Twilio sends
 * no reply of its own) is 200 only after the inbox journaled the message; a journal that is down
 * answers 500, and Twilio's retry (with a `#rc` connection override) is recognised by its MessageSid.
 * `<path>/status` takes the status callbacks of our sends: each send's `StatusCallback` URL carries
 * its outbox key (`botmesh_key`), so a send a crash left ambiguous is settled from Twilio's word.
 */
import type { DeliveryReport, InboundEvent } from '../../core/provider/provider.js'
import type { WebhookRequest, WebhookResponse } from '../shared/http-server.js'
import { signatureHeader } from '../shared/webhook-checks.js'
import type { WebhookRoute } from '../shared/webhook-server.js'
import { TWILIO_LIMITS } from './limits.js'
import { inboundOf, param, paramsOf } from './messages.js'

/** What the webhook route needs from its provider. */
export interface TwilioWebhookDeps {
  /** The local path Twilio's requests arrive on. */
  path: string
  /** The public URL configured in Twilio for `path` (what Twilio signs). */
  publicUrl: string
  accountSid: string
  validSignature(signature: string, url: string, params: Record<string, string | string[]>): boolean
  sink: (event: InboundEvent) => Promise<void>
  /** Takes the status callbacks of our sends (a durable bot's `sink.delivered`). */
  delivered?: ((report: DeliveryReport) => Promise<void>) | undefined
}

/** The query parameter of a `StatusCallback` URL that carries the send's outbox key. */
export const OUTBOX_KEY_PARAM = 'botmesh_key'

/** The `StatusCallback` URL of a send under `outboxKey`. */
export function statusCallbackUrl(publicUrl: string, outboxKey: string): string {
  return `${publicUrl}/status?${OUTBOX_KEY_PARAM}=${encodeURIComponent(outboxKey)}`
}

/** An empty TwiML answer. */
const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>'

/** The path's suffix: '' for messages, '/status' for status callbacks, undefined for another path. */
function suffixOf(url: URL, path: string): '' | '/status' | undefined {
  return url.pathname === path ? '' : url.pathname === `${path}/status` ? '/status' : undefined
}

/**
 * The webhook route, at `path` (messages) and `path/status` (the status callbacks of our sends).
 * Its head refuses a wrong path or method, or no signature header (the signature covers the form
 * parameters, so it is checked once the body is read).
 */
export function twilioWebhook(deps: TwilioWebhookDeps): WebhookRoute {
  return {
    bodyBytesMax: TWILIO_LIMITS.webhookBodyBytesMax,
    head: (head) => {
      if (suffixOf(head.url, deps.path) === undefined) return { status: 404 }
      if (head.method !== 'POST') return { status: 405 }
      return signatureHeader(head, 'x-twilio-signature')
    },
    handle: async (request) => {
      const suffix = suffixOf(request.url, deps.path)!
      const params = paramsOf(request.body)
      const signature = request.headers['x-twilio-signature'] as string
      if (!deps.validSignature(signature, `${deps.publicUrl}${suffix}${request.url.search}`, params))
        return { status: 401, body: 'invalid signature' }
      if (suffix === '/status') return status(request, params, deps)
      // Another account's message (a shared URL) is not this provider's.
      const event = param(params, 'AccountSid') === deps.accountSid ? inboundOf(params) : undefined
      // A rejected sink (the journal is down) throws: the server answers 500.
      if (event) await deps.sink(event)
      return { status: 200, body: EMPTY_TWIML, contentType: 'text/xml' }
    },
  }
}

/** A status callback: the send its URL names is reported delivered to the channel, once taken. */
async function status(
  request: WebhookRequest,
  params: Record<string, string | string[]>,
  deps: TwilioWebhookDeps,
): Promise<WebhookResponse> {
  const outboxKey = request.url.searchParams.get(OUTBOX_KEY_PARAM)
  const messageId = param(params, 'MessageSid')
  const status = param(params, 'MessageStatus')
  if (outboxKey && messageId && param(params, 'AccountSid') === deps.accountSid && deps.delivered)
    await deps.delivered({ outboxKey, messageId, ...(status ? { status } : {}) })
  return { status: 200 }
}
