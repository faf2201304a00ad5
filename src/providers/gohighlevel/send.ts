/**
 * Outbound content as HighLevel's send message API (`POST /conversations/messages`): the text and
 * attachments by hosted URL, on the location's message type (SMS, WhatsApp, …). HighLevel has no
 * buttons and takes no bytes here. The answer names the message id. Content the channel cannot
 * carry is refused before any call.
 */
import { PayloadTooLargeError, UnsupportedContentError } from '../../core/provider/provider-errors.js'
import type { OutboundContent } from '../../core/provider/provider.js'
import { asMessage } from '../shared/content-checks.js'
import type { HttpApi } from '../shared/http-api.js'
import { GOHIGHLEVEL_API_VERSION, GOHIGHLEVEL_LIMITS } from './limits.js'

/** Where and as whom requests go. */
export interface GoHighLevelTarget {
  api: HttpApi
  apiRoot: string
  token: string
  messageType: string
}

/** Sends `content` to the contact `contactId`; resolves HighLevel's message id. */
export async function sendGoHighLevel(target: GoHighLevelTarget, contactId: string, content: OutboundContent): Promise<string> {
  const item = asMessage(content)
  if (item.buttons?.length) throw new UnsupportedContentError('gohighlevel: HighLevel messages have no buttons')
  const text = item.media ? (item.caption ?? item.text) : (item.text ?? item.caption)
  if (item.media && !item.media.url) throw new UnsupportedContentError('gohighlevel: media must be a hosted URL')
  if (!text && !item.media) throw new UnsupportedContentError('gohighlevel: a message needs a text or media')
  if (text && text.length > GOHIGHLEVEL_LIMITS.textLimit)
    throw new PayloadTooLargeError(`gohighlevel: a text of ${text.length} characters is over the limit of ${GOHIGHLEVEL_LIMITS.textLimit}`)
  const answer = await target.api.request<{ messageId?: string }>('POST', `${target.apiRoot}/conversations/messages`, {
    headers: { authorization: `Bearer ${target.token}`, version: GOHIGHLEVEL_API_VERSION },
    json: {
      type: target.messageType,
      contactId,
      ...(text ? { message: text } : {}),
      ...(item.media?.url ? { attachments: [item.media.url] } : {}),
    },
  })
  if (typeof answer?.messageId !== 'string') throw new UnsupportedContentError('gohighlevel: the message was accepted without a message id')
  return answer.messageId
}
