/**
 * Outbound content as WPPConnect Server calls: `send-message` for a text; `send-file` by URL or
 * `send-file-base64` from a path or bytes, with a caption; buttons as the rows of a
 * `send-list-message` (WhatsApp Web dropped reply buttons; a picked row comes back as an
 * interaction). Each answers the sent messages, whose id is the message id. Content the channel
 * cannot carry is refused before any call.
 */
import { readFile } from 'node:fs/promises'
import { basename } from 'node:path'
import { UnsupportedContentError } from '../../core/provider/provider-errors.js'
import type { OutboundContent } from '../../core/provider/provider.js'
import { asMessage, buttonsText, checkCaption, checkedText, shownText } from '../shared/content-checks.js'
import type { OutboundMessage } from '../shared/content-checks.js'
import type { HttpApi } from '../shared/http-api.js'
import { WPPCONNECT_LIMITS } from './limits.js'
import { serialized, type WppconnectId } from './messages.js'

/** Where and as whom requests go. */
export interface WppconnectTarget {
  api: HttpApi
  serverUrl: string
  session: string
  token: string
}

/** Sends `content` to `chatId` (`<digits>@c.us`, `<id>@g.us`); resolves the sent message's id. */
export async function sendWppconnect(target: WppconnectTarget, chatId: string, content: OutboundContent): Promise<string> {
  const [route, body] = await requestOf(asMessage(content))
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

async function requestOf(content: OutboundMessage): Promise<[string, object]> {
  if (content.buttons?.length) {
    const description = buttonsText('wppconnect', content, { noun: 'buttons', buttonsMax: WPPCONNECT_LIMITS.buttonsMax })
    const rows = content.buttons.map((b) => ({ rowId: b.id, title: b.title }))
    return ['send-list-message', { description, buttonText: 'Options', sections: [{ title: 'Options', rows }] }]
  }
  const text = shownText(content)
  if (!content.media) return ['send-message', { message: checkedText('wppconnect', text, WPPCONNECT_LIMITS.textLimit) }]
  const { media } = content
  checkCaption('wppconnect', text, WPPCONNECT_LIMITS.captionLimit)
  const filename = media.fileName ?? (media.path ? basename(media.path) : media.url ? basename(new URL(media.url).pathname) : 'file')
  const common = { filename, ...(text ? { caption: text } : {}) }
  if (media.url) return ['send-file', { path: media.url, ...common }]
  const bytes = media.buffer ?? (media.path ? await readFile(media.path) : undefined)
  if (!bytes) throw new UnsupportedContentError('wppconnect: media needs a url, a path or a buffer')
  const mime = media.mimeType ?? 'application/octet-stream'
  return ['send-file-base64', { base64: `data:${mime};base64,${bytes.toString('base64')}`, ...common }]
}
