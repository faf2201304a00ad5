/**
 * Outbound content as Business Messaging messages (`business/message/send/`, to a conversation):
 * a text up to 6000 characters, or an image, uploaded first (`business/message/media/upload/`,
 * from bytes, a path or a URL the provider fetches) and sent by its media id. TikTok sends no
 * other media, no caption beside an image and no buttons: such content is refused before any call.
 */
import { readFile } from 'node:fs/promises'
import { basename } from 'node:path'
import { PayloadTooLargeError, UnsupportedContentError } from '../../core/provider/provider-errors.js'
import type { OutboundContent } from '../../core/provider/provider.js'
import { asMessage } from '../shared/content-checks.js'
import type { OutboundMedia, OutboundMessage } from '../shared/content-checks.js'
import type { TikTokApi } from './api.js'
import { TIKTOK_LIMITS } from './limits.js'

/** Sends `content` to a conversation; resolves the message id. */
export async function sendTikTok(
  api: TikTokApi,
  fetchUrl: (url: string) => Promise<Buffer>,
  businessId: string,
  conversationId: string,
  content: OutboundContent,
): Promise<string> {
  const c = asMessage(content)
  if (c.buttons?.length) throw new UnsupportedContentError('tiktok: Business Messaging has no buttons')
  const head = { business_id: businessId, recipient_type: 'CONVERSATION', recipient: conversationId }
  let body: object
  if (c.media) {
    if (c.media.type !== 'image') throw new UnsupportedContentError(`tiktok: only images can be sent (not ${c.media.type})`)
    if (c.caption || c.text) throw new UnsupportedContentError('tiktok: an image carries no text; send the text as its own message')
    body = { ...head, message_type: 'IMAGE', image: { media_id: await upload(api, fetchUrl, businessId, c.media) } }
  } else {
    const text = c.text ?? c.caption
    if (!text) throw new UnsupportedContentError('tiktok: a message needs a text or an image')
    if (text.length > TIKTOK_LIMITS.textLimit)
      throw new PayloadTooLargeError(`tiktok: a text of ${text.length} characters is over the limit of ${TIKTOK_LIMITS.textLimit}`)
    body = { ...head, message_type: 'TEXT', text: { body: text } }
  }
  const data = await api.post<{ message?: { message_id?: string } }>('business/message/send/', body)
  const id = data?.message?.message_id
  if (!id) throw new UnsupportedContentError('tiktok: the Business API accepted the message without a message id')
  return id
}

async function upload(
  api: TikTokApi,
  fetchUrl: (url: string) => Promise<Buffer>,
  businessId: string,
  media: OutboundMedia,
): Promise<string> {
  const bytes = media.buffer ?? (media.path ? await readFile(media.path) : undefined) ?? (media.url ? await fetchUrl(media.url) : undefined)
  if (!bytes) throw new UnsupportedContentError('tiktok: media needs a url, a path or a buffer')
  const type = media.mimeType ?? 'image/jpeg'
  const form = new FormData()
  form.append('business_id', businessId)
  form.append('media_type', 'IMAGE')
  form.append('file', new Blob([bytes], { type }), media.fileName ?? (media.path ? basename(media.path) : 'image.jpg'))
  const data = await api.post<{ media_id?: string }>('business/message/media/upload/', form)
  if (!data?.media_id) throw new UnsupportedContentError('tiktok: the media upload returned no media id')
  return data.media_id
}
