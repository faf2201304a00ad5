/**
 * Incoming-message webhooks as inbound events. Twilio POSTs each message as a form
 * (`MessageSid`, `From`, `To`, `Body`, `NumMedia`, `MediaUrl0`, `MediaContentType0`, and for
 * WhatsApp quick replies `ButtonPayload` / `ButtonText`); the `MessageSid` is the event's id, so a
 * retried webhook maps to the same inbox record. The chat is `From` as Twilio writes it
 * (`+14155552671`, or `whatsapp:+14155552671`), so a reply goes back on the same channel.
 */
import type { InboundEvent, MediaRef, MediaType } from '../../core/provider/provider.js'

/** A webhook's form parameters (a repeated name gives several values). */
export type TwilioParams = Record<string, string | string[]>

/** One value of a form parameter. */
export const param = (params: TwilioParams, name: string): string | undefined => {
  const value = params[name]
  return Array.isArray(value) ? value[0] : value
}

/** The form parameters of a webhook body, as the signature check reads them. */
export function paramsOf(body: Buffer): TwilioParams {
  const params: TwilioParams = {}
  for (const [name, value] of new URLSearchParams(body.toString('utf8'))) {
    const previous = params[name]
    params[name] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value]
  }
  return params
}

/** The inbound event of an incoming-message webhook, or undefined when it is not one. */
export function inboundOf(params: TwilioParams): InboundEvent | undefined {
  const id = param(params, 'MessageSid') ?? param(params, 'SmsSid')
  const from = param(params, 'From')
  if (!id || !from) return undefined
  const event: InboundEvent = { id, chatId: from, from, kind: 'message' }
  const body = param(params, 'Body')
  if (body) event.text = body
  const payload = param(params, 'ButtonPayload')
  if (payload) {
    const title = param(params, 'ButtonText')
    return { ...event, kind: 'interaction', interaction: { id: payload, ...(title ? { data: { title } } : {}) } }
  }
  // An event carries one media: the first one (Twilio numbers them from 0).
  const url = Number(param(params, 'NumMedia') ?? 0) > 0 ? param(params, 'MediaUrl0') : undefined
  if (url) {
    const mimeType = param(params, 'MediaContentType0')
    const media: MediaRef = { type: mediaTypeOf(mimeType), token: { url } }
    if (mimeType) media.mimeType = mimeType
    event.media = media
  }
  return event
}

function mediaTypeOf(mimeType: string | undefined): MediaType {
  const kind = mimeType?.split('/')[0]
  return kind === 'image' || kind === 'video' || kind === 'audio' ? kind : 'document'
}
