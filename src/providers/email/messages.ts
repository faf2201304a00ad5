/**
 * A received email as an inbound event. Its `Message-ID` is the event id (a message fetched again
 * maps to the same inbox record); the chat is the sender's address; the first attachment is the
 * media, referenced by Message-ID, index and (once journaled) the digest of its bytes, with the
 * IMAP UID and UIDVALIDITY that find it fastest.
 */
import type { ParsedMail } from 'mailparser'
import type { InboundEvent, MediaRef, MediaType } from '../../core/provider/provider.js'

/** Where a message sits in the mailbox. */
export interface MailboxPlace {
  uid: number
  uidValidity: number
}

/** The inbound event of a parsed email, or undefined for one without a sender or from `self`. */
export function inboundOf(mail: ParsedMail, place: MailboxPlace, self: string): InboundEvent | undefined {
  const sender = mail.from?.value[0]?.address?.toLowerCase()
  if (!sender || sender === self.toLowerCase()) return undefined
  const id = mail.messageId ?? `<uid-${place.uidValidity}-${place.uid}@mailbox.invalid>`
  const event: InboundEvent = { id, chatId: sender, from: sender, kind: 'message' }
  if (mail.date) event.timestamp = mail.date.getTime()
  const text = mail.text?.trimEnd()
  if (text) event.text = text
  const attachment = mail.attachments.find((a) => a.contentDisposition !== 'inline' || !a.related)
  if (attachment) {
    const index = mail.attachments.indexOf(attachment)
    const media: MediaRef = {
      type: mediaTypeOf(attachment.contentType),
      token: { messageId: id, index, content: attachment.content, ...place },
      mimeType: attachment.contentType,
    }
    if (attachment.filename) media.fileName = attachment.filename
    event.media = media
  }
  return event.text === undefined && !event.media ? undefined : event
}

function mediaTypeOf(contentType: string): MediaType {
  const kind = contentType.split('/')[0]
  return kind === 'image' || kind === 'video' || kind === 'audio' ? kind : 'document'
}
