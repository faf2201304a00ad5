/**
 * Outbound content as Gupshup's send message API: one form POST with the message as JSON — a
 * text; an image, video, audio, file or sticker by URL with its caption; up to three quick-reply
 * buttons. Gupshup takes media by hosted URL only. The answer (`status: 'submitted'`) names the
 * message id. Content the channel cannot carry is refused before any call.
 */
import { UnsupportedContentError } from '../../core/provider/provider-errors.js'
import type { OutboundContent } from '../../core/provider/provider.js'
import { asMessage, buttonsText, checkCaption, checkedText, shownText } from '../shared/content-checks.js'
import type { OutboundMessage } from '../shared/content-checks.js'
import type { HttpApi } from '../shared/http-api.js'
import { GUPSHUP_LIMITS } from './limits.js'

/** Where and as whom requests go. */
export interface GupshupTarget {
  api: HttpApi
  apiRoot: string
  apiKey: string
  /** The app's WhatsApp number (`source`). */
  source: string
  /** The app's name (`src.name`). */
  app: string
}

/** Sends `content` to `destination` (the user's number); resolves Gupshup's message id. */
export async function sendGupshup(target: GupshupTarget, destination: string, content: OutboundContent): Promise<string> {
  const message = messageOf(asMessage(content))
  const form = new URLSearchParams({
    channel: 'whatsapp',
    source: target.source,
    destination,
    'src.name': target.app,
    message: JSON.stringify(message),
  })
  const answer = await target.api.request<{ status?: string; messageId?: string }>('POST', `${target.apiRoot}/wa/api/v1/msg`, {
    headers: { apikey: target.apiKey },
    form,
  })
  if (typeof answer?.messageId !== 'string') throw new UnsupportedContentError('gupshup: the message was accepted without a message id')
  return answer.messageId
}

function messageOf(content: OutboundMessage): object {
  if (content.buttons?.length) {
    const { buttonsMax, buttonTitleMax } = GUPSHUP_LIMITS
    const text = buttonsText('gupshup', content, { noun: 'quick replies', buttonsMax, buttonTitleMax })
    return {
      type: 'quick_reply',
      content: { type: 'text', text },
      options: content.buttons.map((b) => ({ type: 'text', title: b.title, postbackText: b.id })),
    }
  }
  const text = shownText(content)
  if (!content.media) return { type: 'text', text: checkedText('gupshup', text, GUPSHUP_LIMITS.textLimit) }
  const { media } = content
  if (!media.url) throw new UnsupportedContentError('gupshup: media must be a hosted URL (Gupshup takes no uploads here)')
  checkCaption('gupshup', text, GUPSHUP_LIMITS.captionLimit)
  const caption = text && media.type !== 'audio' && media.type !== 'sticker' ? { caption: text } : {}
  if (media.type === 'image') return { type: 'image', originalUrl: media.url, previewUrl: media.url, ...caption }
  if (media.type === 'document') return { type: 'file', url: media.url, filename: media.fileName ?? 'file', ...caption }
  return { type: media.type, url: media.url, ...caption }
}
