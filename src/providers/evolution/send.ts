/**
 * Outbound content as Evolution API calls: `sendText`; `sendMedia` (image, video, document),
 * `sendWhatsAppAudio` and `sendSticker` by URL or base64 (a path or bytes are read and encoded);
 * up to three reply buttons with `sendButtons`. Each answers the sent message, whose key id is
 * the message id. Content the channel cannot carry is refused before any call.
 */
import { readFile } from 'node:fs/promises'
import { basename } from 'node:path'
import { UnsupportedContentError } from '../../core/provider/provider-errors.js'
import type { OutboundContent } from '../../core/provider/provider.js'
import { asMessage, buttonsText, checkCaption, checkedText, shownText } from '../shared/content-checks.js'
import type { OutboundMedia, OutboundMessage } from '../shared/content-checks.js'
import type { HttpApi } from '../shared/http-api.js'
import { EVOLUTION_LIMITS } from './limits.js'

/** Where and as whom requests go. */
export interface EvolutionTarget {
  api: HttpApi
  apiUrl: string
  instance: string
  apiKey: string
}

/** Sends `content` to `number` (a JID or digits); resolves the message's key id. */
export async function sendEvolution(target: EvolutionTarget, number: string, content: OutboundContent): Promise<string> {
  const [method, body] = await requestOf(asMessage(content))
  const url = `${target.apiUrl}/message/${method}/${encodeURIComponent(target.instance)}`
  const answer = await target.api.request<{ key?: { id?: string } }>('POST', url, {
    headers: { apikey: target.apiKey },
    json: { number, ...body },
  })
  const id = answer?.key?.id
  if (typeof id !== 'string') throw new UnsupportedContentError(`evolution: ${method} answered without a message key`)
  return id
}

async function requestOf(content: OutboundMessage): Promise<[string, object]> {
  if (content.buttons?.length) {
    const title = buttonsText('evolution', content, { noun: 'reply buttons', buttonsMax: EVOLUTION_LIMITS.buttonsMax })
    return ['sendButtons', { title, buttons: content.buttons.map((b) => ({ type: 'reply', displayText: b.title, id: b.id })) }]
  }
  const text = shownText(content)
  if (!content.media) return ['sendText', { text: checkedText('evolution', text, EVOLUTION_LIMITS.textLimit) }]
  const { media } = content
  checkCaption('evolution', text, EVOLUTION_LIMITS.captionLimit)
  const source = await sourceOf(media)
  if (media.type === 'audio') return ['sendWhatsAppAudio', { audio: source }]
  if (media.type === 'sticker') return ['sendSticker', { sticker: source }]
  const fileName = media.fileName ?? (media.path ? basename(media.path) : undefined)
  return [
    'sendMedia',
    {
      mediatype: media.type,
      media: source,
      ...(media.mimeType ? { mimetype: media.mimeType } : {}),
      ...(text ? { caption: text } : {}),
      ...(fileName ? { fileName } : {}),
    },
  ]
}

/** A URL as it is; a path or bytes as base64 (Evolution takes either in the same field). */
async function sourceOf(media: OutboundMedia): Promise<string> {
  if (media.url) return media.url
  const bytes = media.buffer ?? (media.path ? await readFile(media.path) : undefined)
  if (!bytes) throw new UnsupportedContentError('evolution: media needs a url, a path or a buffer')
  return bytes.toString('base64')
}
