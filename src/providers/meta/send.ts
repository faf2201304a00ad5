/**
 * Outbound content as Cloud API messages: a text; media by link, or uploaded first (a path or
 * bytes) and sent by its media id, with its caption; up to three reply buttons as an interactive
 * message. Content the channel cannot carry is refused before any call.
 */
import { readFile } from 'node:fs/promises'
import { basename } from 'node:path'
import { UnsupportedContentError } from '../../core/provider/provider-errors.js'
import type { OutboundContent } from '../../core/provider/provider.js'
import { asMessage, buttonsText, checkCaption, checkedText, shownText } from '../shared/content-checks.js'
import type { OutboundMedia, OutboundMessage } from '../shared/content-checks.js'
import type { GraphClient } from '../shared/graph.js'
import { META_LIMITS } from './limits.js'

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
  const body = await messageBody(graph, phoneNumberId, asMessage(content))
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

async function messageBody(graph: GraphClient, phoneNumberId: string, content: OutboundMessage): Promise<object> {
  if (content.buttons?.length) {
    const { buttonsMax, buttonTitleMax } = META_LIMITS
    const text = buttonsText('meta', content, { noun: 'reply buttons', buttonsMax, buttonTitleMax })
    return {
      type: 'interactive',
      interactive: {
        type: 'button',
        body: { text },
        action: { buttons: content.buttons.map((b) => ({ type: 'reply', reply: { id: b.id, title: b.title } })) },
      },
    }
  }
  const text = shownText(content)
  if (!content.media) return { type: 'text', text: { body: checkedText('meta', text, META_LIMITS.textLimit), preview_url: false } }
  const { media } = content
  checkCaption('meta', text, META_LIMITS.captionLimit)
  const object: Record<string, string> = media.url ? { link: media.url } : { id: await upload(graph, phoneNumberId, media) }
  // Audio and stickers carry no caption on WhatsApp.
  if (text && media.type !== 'audio' && media.type !== 'sticker') object.caption = text
  if (media.type === 'document' && media.fileName) object.filename = media.fileName
  return { type: media.type, [media.type]: object }
}

/** Uploads a path or bytes; resolves the media id. */
async function upload(graph: GraphClient, phoneNumberId: string, media: OutboundMedia): Promise<string> {
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
