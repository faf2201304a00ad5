/**
 * Outbound content as Cloud API messages: a text; media by link, or uploaded first (a path or
 * bytes) and sent by its media id, with its caption; up to three reply buttons as an interactive
 * message. Content the channel cannot carry is refused before any call.
 */
import { readFile } from 'node:fs/promises'
import { basename } from 'node:path'
import { PayloadTooLargeError, UnsupportedContentError } from '../../core/provider/provider-errors.js'
import type { OutboundContent } from '../../core/provider/provider.js'
import type { GraphClient } from '../shared/graph.js'
import { META_LIMITS } from './limits.js'

type Content = Exclude<OutboundContent, string>
type Media = NonNullable<Content['media']>

/** The longest `biz_opaque_callback_data` the Cloud API echoes back. @default 512 */
const CALLBACK_DATA_LENGTH_MAX = 512

/**
 * Sends `content` to `to` from `phoneNumberId`; resolves the message id (`wamid…`). `outboxKey`
 * rides in `biz_opaque_callback_data`, which the status webhooks of the message echo.
 */
export async function sendMessage(
  graph: GraphClient,
  phoneNumberId: string,
  to: string,
  content: OutboundContent,
  outboxKey?: string,
): Promise<string> {
  const body = await messageBody(graph, phoneNumberId, typeof content === 'string' ? { text: content } : content)
  const echo = outboxKey && outboxKey.length <= CALLBACK_DATA_LENGTH_MAX ? { biz_opaque_callback_data: outboxKey } : {}
  const answer = await graph.call<{ messages?: { id: string }[] }>('POST', `${phoneNumberId}/messages`, {
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    to,
    ...body,
    ...echo,
  })
  const id = answer?.messages?.[0]?.id
  if (!id) throw new UnsupportedContentError('meta: the Graph API accepted the message without a message id')
  return id
}

async function messageBody(graph: GraphClient, phoneNumberId: string, content: Content): Promise<object> {
  const text = content.media ? (content.caption ?? content.text) : (content.text ?? content.caption)
  if (content.buttons?.length) {
    if (content.media) throw new UnsupportedContentError('meta: reply buttons with media are not supported by this transport')
    if (content.buttons.length > META_LIMITS.buttonsMax)
      throw new UnsupportedContentError(`meta: at most ${META_LIMITS.buttonsMax} reply buttons (${content.buttons.length} given)`)
    const long = content.buttons.find((b) => b.title.length > META_LIMITS.buttonTitleMax)
    if (long) throw new PayloadTooLargeError(`meta: the button title "${long.title}" is over ${META_LIMITS.buttonTitleMax} characters`)
    if (!text) throw new UnsupportedContentError('meta: reply buttons need a text')
    return {
      type: 'interactive',
      interactive: {
        type: 'button',
        body: { text },
        action: { buttons: content.buttons.map((b) => ({ type: 'reply', reply: { id: b.id, title: b.title } })) },
      },
    }
  }
  if (!content.media) {
    if (!text) throw new UnsupportedContentError('meta: a message needs a text or media')
    if (text.length > META_LIMITS.textLimit)
      throw new PayloadTooLargeError(`meta: a text of ${text.length} characters is over the limit of ${META_LIMITS.textLimit}`)
    return { type: 'text', text: { body: text, preview_url: false } }
  }
  const { media } = content
  if (text && text.length > META_LIMITS.captionLimit)
    throw new PayloadTooLargeError(`meta: a caption of ${text.length} characters is over the limit of ${META_LIMITS.captionLimit}`)
  const object: Record<string, string> = media.url ? { link: media.url } : { id: await upload(graph, phoneNumberId, media) }
  // Audio and stickers carry no caption on WhatsApp.
  if (text && media.type !== 'audio' && media.type !== 'sticker') object.caption = text
  if (media.type === 'document' && media.fileName) object.filename = media.fileName
  return { type: media.type, [media.type]: object }
}

/** Uploads a path or bytes; resolves the media id. */
async function upload(graph: GraphClient, phoneNumberId: string, media: Media): Promise<string> {
  const bytes = media.buffer ?? (media.path ? await readFile(media.path) : undefined)
  if (!bytes) throw new UnsupportedContentError('meta: media needs a url, a path or a buffer')
  const type = media.mimeType ?? 'application/octet-stream'
  const form = new FormData()
  form.append('messaging_product', 'whatsapp')
  form.append('type', type)
  form.append('file', new Blob([bytes], { type }), media.fileName ?? (media.path ? basename(media.path) : 'file'))
  const answer = await graph.call<{ id?: string }>('POST', `${phoneNumberId}/media`, form)
  if (!answer?.id) throw new UnsupportedContentError('meta: the media upload returned no id')
  return answer.id
}
