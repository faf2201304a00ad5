/**
 * Outbound content as an email over SMTP (nodemailer): the text as the body, media as an
 * attachment (by URL, path or bytes), to the chat's address. Email has no buttons. Resolves the
 * Message-ID the email went out with.
 */
import type { Transporter } from 'nodemailer'
import { UnsupportedContentError } from '../../core/provider/provider-errors.js'
import type { OutboundContent } from '../../core/provider/provider.js'
import { asMessage } from '../shared/content-checks.js'

/** Sends `content` to `to` from `from` with `subject`; resolves the Message-ID. */
export async function sendEmail(
  transport: Transporter,
  message: { from: string; to: string; subject: string },
  content: OutboundContent,
): Promise<string> {
  const item = asMessage(content)
  if (item.buttons?.length) throw new UnsupportedContentError('email: an email has no buttons')
  const text = item.media ? (item.caption ?? item.text) : (item.text ?? item.caption)
  if (!text && !item.media) throw new UnsupportedContentError('email: a message needs a text or media')
  const media = item.media
  const attachments = media
    ? [
        {
          ...(media.buffer ? { content: media.buffer } : { path: media.url ?? media.path }),
          ...(media.fileName ? { filename: media.fileName } : {}),
          ...(media.mimeType ? { contentType: media.mimeType } : {}),
        },
      ]
    : []
  if (media && !media.buffer && !media.url && !media.path) throw new UnsupportedContentError('email: media needs a url, a path or a buffer')
  const info = (await transport.sendMail({ ...message, text: text ?? '', attachments })) as { messageId?: string }
  if (typeof info.messageId !== 'string') throw new UnsupportedContentError('email: the server accepted the email without a Message-ID')
  return info.messageId
}
