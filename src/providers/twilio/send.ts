/**
 * Outbound content as Twilio message parameters: a body, media by a public URL (Twilio fetches
 * it; a path or bytes cannot be sent), a caption as the body beside it. Twilio's Messaging API
 * has no reply buttons (WhatsApp's need Content API templates), so content with buttons is refused
 * before any call, like a body over the limit.
 */
import { PayloadTooLargeError, UnsupportedContentError } from '../../core/provider/provider-errors.js'
import type { OutboundContent } from '../../core/provider/provider.js'
import { asMessage } from '../shared/content-checks.js'
import { TWILIO_LIMITS } from './limits.js'

/** Who a message is sent from: a number (or WhatsApp sender), or a Messaging Service. */
export type TwilioSender = { from: string } | { messagingServiceSid: string }

/** The `messages.create` parameters of `content` sent to `to`. */
export function messageParams(sender: TwilioSender, to: string, content: OutboundContent): Record<string, unknown> {
  const c = asMessage(content)
  if (c.buttons?.length)
    throw new UnsupportedContentError('twilio: reply buttons need a Content API template; the Messaging API sends none')
  const body = c.media ? (c.caption ?? c.text) : (c.text ?? c.caption)
  if (body && body.length > TWILIO_LIMITS.textLimit)
    throw new PayloadTooLargeError(`twilio: a body of ${body.length} characters is over the limit of ${TWILIO_LIMITS.textLimit}`)
  const params: Record<string, unknown> = { to, ...senderParams(sender, to) }
  if (body) params.body = body
  if (c.media) {
    if (!c.media.url || !/^https?:\/\//.test(c.media.url))
      throw new UnsupportedContentError('twilio: media must be a public http(s) URL Twilio can fetch (a path or bytes cannot be sent)')
    params.mediaUrl = [c.media.url]
  }
  if (!params.body && !params.mediaUrl) throw new UnsupportedContentError('twilio: a message needs a body or media')
  return params
}

/** A WhatsApp chat is answered from the WhatsApp form of the sender. */
function senderParams(sender: TwilioSender, to: string): Record<string, string> {
  if ('messagingServiceSid' in sender) return { messagingServiceSid: sender.messagingServiceSid }
  const whatsapp = to.startsWith('whatsapp:') && !sender.from.startsWith('whatsapp:')
  return { from: whatsapp ? `whatsapp:${sender.from}` : sender.from }
}
