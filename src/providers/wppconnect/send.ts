/**
 * Outbound content as WPPConnect Server calls: `send-message` for a text; `send-file` by URL or
 * `send-file-base64` from a path or bytes, with a caption; buttons as the rows of a
 * `send-list-message` (WhatsApp Web dropped reply buttons; a picked row comes back as an
 * interaction). Each answers the sent messages, whose id is the message id. Content the channel
 * cannot carry is refused before any call.
 */
import { readFile } from 'node:fs/promises'
import { basename } from 'node:path'
import { PayloadTooLargeError, UnsupportedContentError } from '../../core/provider/provider-errors.js'
import type { OutboundContent } from '../../core/provider/provider.js'
import type { HttpApi } from '../shared/http-api.js'
import { WPPCONNECT_LIMITS } from './limits.js'
import { serialized, type WppconnectId } from './messages.js'

type Content = Exclude<OutboundContent, string>

/** Where and as whom requests go. */
export interface WppconnectTarget {
  api: HttpApi
  serverUrl: string
  session: string
  token: string
}

/** Sends `content` to `chatId` (`<digits>@c.us`, `<id>@g.us`); resolves the sent message's id. */
export async function sendWppconnect(target: WppconnectTarget, chatId: string, content: OutboundContent): Promise<string> {
  const [route, body] = await requestOf(typeof content === 'string' ? { text: content } : content)
  const url = `${target.serverUrl}/api/${encodeURIComponent(target.session)}/${route}`
  const isGroup = chatId.endsWith('@g.us')
  const answer = await target.api.request<{ response?: { id?: WppconnectId }[] }>('POST', url, {
    headers: { authorization: `Bearer ${target.token}` },
    json: { phone: chatId.split('@')[0], isGroup, ...body },
  })
  const id = serialized(answer?.response?.[0]?.id)
  if (!id) throw new UnsupportedContentError(`wppconnect: ${route} answered without a message id`)
  return id
}

async function requestOf(content: Content): Promise<[string, object]> {
  const text = content.media ? (content.caption ?? content.text) : (content.text ?? content.caption)
  if (content.buttons?.length) {
    if (content.media) throw new UnsupportedContentError('wppconnect: buttons with media are not supported by this transport')
    if (content.buttons.length > WPPCONNECT_LIMITS.buttonsMax)
      throw new UnsupportedContentError(`wppconnect: at most ${WPPCONNECT_LIMITS.buttonsMax} buttons (${content.buttons.length} given)`)
    if (!text) throw new UnsupportedContentError('wppconnect: buttons need a text')
    const rows = content.buttons.map((b) => ({ rowId: b.id, title: b.title }))
    return ['send-list-message', { description: text, buttonText: 'Options', sections: [{ title: 'Options', rows }] }]
  }
  if (!content.media) {
    if (!text) throw new UnsupportedContentError('wppconnect: a message needs a text or media')
    if (text.length > WPPCONNECT_LIMITS.textLimit)
      throw new PayloadTooLargeError(`wppconnect: a text of ${text.length} characters is over the limit of ${WPPCONNECT_LIMITS.textLimit}`)
    return ['send-message', { message: text }]
  }
  const { media } = content
  if (text && text.length > WPPCONNECT_LIMITS.captionLimit)
    throw new PayloadTooLargeError(
      `wppconnect: a caption of ${text.length} characters is over the limit of ${WPPCONNECT_LIMITS.captionLimit}`,
    )
  const filename = media.fileName ?? (media.path ? basename(media.path) : media.url ? basename(new URL(media.url).pathname) : 'file')
  const common = { filename, ...(text ? { caption: text } : {}) }
  if (media.url) return ['send-file', { path: media.url, ...common }]
  const bytes = media.buffer ?? (media.path ? await readFile(media.path) : undefined)
  if (!bytes) throw new UnsupportedContentError('wppconnect: media needs a url, a path or a buffer')
  const mime = media.mimeType ?? 'application/octet-stream'
  return ['send-file-base64', { base64: `data:${mime};base64,${bytes.toString('base64')}`, ...common }]
}
