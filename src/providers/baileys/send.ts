/**
 * Outbound content as WhatsApp Web messages (`sendMessage` contents): a text; an image, video or
 * document with its caption, an audio or a sticker, by URL, path or bytes (the library uploads
 * it, encrypted, to WhatsApp's media servers). Reply buttons are refused: WhatsApp no longer shows
 * button or list messages sent from a WhatsApp Web session (only the Business API sends them), and
 * the library dropped them; a refused send is dead-lettered instead of reaching the user without
 * its choices. A chat is a JID, or a phone number in international digits.
 */
import type { AnyMessageContent, WAMediaUpload } from 'baileys'
import { RecipientUnreachableError, UnsupportedContentError } from '../../core/provider/provider-errors.js'
import type { OutboundContent } from '../../core/provider/provider.js'
import { asMessage, checkCaption, checkedText, shownText } from '../shared/content-checks.js'
import type { OutboundMedia, OutboundMessage } from '../shared/content-checks.js'
import { BAILEYS_LIMITS } from './limits.js'

/** A JID on WhatsApp's own domains (a user, group, LID, broadcast list or channel). */
const JID = /^[\w.:+-]+@(s\.whatsapp\.net|g\.us|lid|broadcast|newsletter)$/
/** A phone number in international form, with or without `+`. */
const PHONE = /^\+?\d{6,20}$/

/** The JID a chat id names: a JID as it is, `…@c.us` on the user domain, digits as a user. */
export function jidOf(chatId: string): string {
  if (PHONE.test(chatId)) return `${chatId.replace(/^\+/, '')}@s.whatsapp.net`
  const jid = chatId.replace(/@c\.us$/, '@s.whatsapp.net')
  if (!JID.test(jid)) throw new RecipientUnreachableError(`baileys: "${chatId}" is not a WhatsApp JID nor a phone number`)
  return jid
}

/** The message content that sends `content`; refuses what WhatsApp Web cannot carry, before any call. */
export function messageContentOf(content: OutboundContent): AnyMessageContent {
  const c = asMessage(content)
  if (c.buttons?.length) throw new UnsupportedContentError('baileys: WhatsApp does not show reply buttons sent from a WhatsApp Web session')
  if (!c.media) {
    return { text: checkedText('baileys', shownText(c), BAILEYS_LIMITS.textLimit) }
  }
  const caption = shownText(c)
  checkCaption('baileys', caption, BAILEYS_LIMITS.captionLimit)
  return mediaContentOf(c.media, caption)
}

function mediaContentOf(media: OutboundMedia, caption: string | undefined): AnyMessageContent {
  const upload = uploadOf(media)
  const mimetype = media.mimeType ? { mimetype: media.mimeType } : {}
  const captioned = caption ? { caption } : {}
  switch (media.type) {
    case 'image':
      return { image: upload, ...captioned, ...mimetype }
    case 'video':
      return { video: upload, ...captioned, ...mimetype }
    case 'audio':
      return { audio: upload, ...mimetype }
    case 'sticker':
      return { sticker: upload, ...mimetype }
    case 'document':
      return {
        document: upload,
        mimetype: media.mimeType ?? 'application/octet-stream',
        ...(media.fileName ? { fileName: media.fileName } : {}),
        ...captioned,
      }
  }
}

/** Bytes as they are; a URL or a local path as `{ url }` (the library reads either). */
function uploadOf(media: OutboundMedia): WAMediaUpload {
  if (media.buffer) return media.buffer
  const url = media.url ?? media.path
  if (!url) throw new UnsupportedContentError('baileys: media needs a url, a path or a buffer')
  return { url }
}
