/**
 * Outbound content as Send API requests (Messenger, Instagram): a text, a text with quick replies
 * (the buttons; a press comes back as the quick reply's payload), or one attachment by URL or (on
 * Messenger) uploaded from a path or bytes. The platform's attachments carry no caption, so
 * content with both is refused before any call, like anything over the channel's limits.
 */
import { readFile } from 'node:fs/promises'
import { basename } from 'node:path'
import { UnsupportedContentError } from '../../../core/provider/provider-errors.js'
import type { OutboundContent } from '../../../core/provider/provider.js'
import { asMessage, buttonsText, checkedText, shownText } from '../content-checks.js'
import type { OutboundMedia, OutboundMessage } from '../content-checks.js'
import type { GraphClient } from '../graph.js'

/** What a channel's Send API accepts. */
export interface MessagingSendLimits {
  channel: string
  textLimit: number
  quickRepliesMax: number
  quickReplyTitleMax: number
  /** Whether media may be uploaded with the message (a path or bytes). */
  uploads: boolean
}

const ATTACHMENT_TYPES = { image: 'image', video: 'video', audio: 'audio', document: 'file', sticker: 'image' } as const

/** Sends `content` to `recipient` through `endpoint` (`{id}/messages`); resolves the message id. */
export async function sendMessaging(
  graph: GraphClient,
  endpoint: string,
  recipient: string,
  content: OutboundContent,
  limits: MessagingSendLimits,
): Promise<string> {
  const c = asMessage(content)
  if (c.media && (c.caption || c.text || c.buttons?.length))
    throw new UnsupportedContentError(`${limits.channel}: an attachment carries no text or buttons; send the text as its own message`)
  const head = { recipient: { id: recipient }, messaging_type: 'RESPONSE' }
  let answer: { message_id?: string } | undefined
  if (c.media && !c.media.url) answer = await graph.call('POST', endpoint, await uploadForm(head, c.media, limits))
  else answer = await graph.call('POST', endpoint, { ...head, message: messageOf(c, limits) })
  if (!answer?.message_id) throw new UnsupportedContentError(`${limits.channel}: the Send API accepted the message without a message id`)
  return answer.message_id
}

function messageOf(c: OutboundMessage, limits: MessagingSendLimits): object {
  const { channel } = limits
  if (c.media) return { attachment: { type: ATTACHMENT_TYPES[c.media.type], payload: { url: c.media.url, is_reusable: false } } }
  const text = checkedText(channel, shownText(c), limits.textLimit)
  if (!c.buttons?.length) return { text }
  buttonsText(channel, c, { noun: 'quick replies', buttonsMax: limits.quickRepliesMax, buttonTitleMax: limits.quickReplyTitleMax })
  return { text, quick_replies: c.buttons.map((b) => ({ content_type: 'text', title: b.title, payload: b.id })) }
}

/** The multipart form of an attachment sent with its bytes (`filedata`). */
async function uploadForm(head: object, media: OutboundMedia, limits: MessagingSendLimits): Promise<FormData> {
  if (!limits.uploads)
    throw new UnsupportedContentError(`${limits.channel}: media must be a public URL (the Send API takes no upload here)`)
  const bytes = media.buffer ?? (media.path ? await readFile(media.path) : undefined)
  if (!bytes) throw new UnsupportedContentError(`${limits.channel}: media needs a url, a path or a buffer`)
  const type = media.mimeType ?? 'application/octet-stream'
  const form = new FormData()
  for (const [name, value] of Object.entries(head)) form.append(name, typeof value === 'string' ? value : JSON.stringify(value))
  form.append('message', JSON.stringify({ attachment: { type: ATTACHMENT_TYPES[media.type], payload: { is_reusable: false } } }))
  form.append('filedata', new Blob([bytes], { type }), media.fileName ?? (media.path ? basename(media.path) : 'file'))
  return form
}
