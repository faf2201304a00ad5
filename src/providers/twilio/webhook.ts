/**
 * The incoming-message webhook. Twilio signs each request with the auth token
 * (`X-Twilio-Signature`, over the URL it called and the form parameters): a bad signature is
 * refused with 401 and journals nothing. The answer (an empty TwiML `<Response/>`, so Twilio sends
 * no reply of its own) is 200 only after the inbox journaled the message; a journal that is down
 * answers 500, and Twilio's retry (with a `#rc` connection override) is recognised by its MessageSid.
 */
import type { InboundEvent } from '../../core/provider.js'
import type { WebhookRequest, WebhookResponse } from '../shared/http-server.js'
import { inboundOf, param, paramsOf } from './messages.js'

/** What the webhook handler needs from its provider. */
export interface TwilioWebhookDeps {
  /** The local path Twilio's requests arrive on. */
  path: string
  /** The public URL configured in Twilio for `path` (what Twilio signs). */
  publicUrl: string
  accountSid: string
  validSignature(signature: string, url: string, params: Record<string, string | string[]>): boolean
  sink: (event: InboundEvent) => Promise<void>
}

/** An empty TwiML answer. */
const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>'

/** Handles one webhook request. */
export async function handleTwilioWebhook(request: WebhookRequest, deps: TwilioWebhookDeps): Promise<WebhookResponse> {
  if (request.url.pathname !== deps.path) return { status: 404 }
  if (request.method !== 'POST') return { status: 405 }
  const params = paramsOf(request.body)
  const signature = request.headers['x-twilio-signature']
  if (typeof signature !== 'string' || !deps.validSignature(signature, `${deps.publicUrl}${request.url.search}`, params))
    return { status: 401, body: 'invalid signature' }
  // Another account's message (a shared URL) is not this provider's.
  const event = param(params, 'AccountSid') === deps.accountSid ? inboundOf(params) : undefined
  // A rejected sink (the journal is down) throws: the server answers 500.
  if (event) await deps.sink(event)
  return { status: 200, body: EMPTY_TWIML, contentType: 'text/xml' }
}
