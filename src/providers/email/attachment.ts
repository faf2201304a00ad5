/**
 * Downloading an attachment by its journaled reference: the message is found by UID while the
 * mailbox's UIDVALIDITY is the one journaled, else by its Message-ID; the attachment at the index
 * is handed over only when its SHA-256 matches the journaled digest, so another attachment is
 * never given to the handler.
 */
import { createHash } from 'node:crypto'
import type { ImapFlowOptions } from 'imapflow'
import { MediaDownloadError } from '../shared/errors.js'
import type { EmailDrivers } from './client.js'
import type { EmailMediaToken } from './media-ref.js'

/** Fetches the attachment `token` names from `mailbox`. */
export async function fetchAttachment(
  drivers: EmailDrivers,
  options: { imap: ImapFlowOptions; mailbox: string; bytesMax: number },
  token: EmailMediaToken,
): Promise<Buffer> {
  const client = new drivers.ImapFlow({ logger: false, ...options.imap })
  client.on('error', () => undefined)
  try {
    await client.connect()
    const mailbox = await client.mailboxOpen(options.mailbox, { readOnly: true })
    let uid = token.uid !== undefined && Number(mailbox.uidValidity) === token.uidValidity ? token.uid : undefined
    uid ??= ((await client.search({ header: { 'message-id': token.messageId } }, { uid: true })) || [])[0]
    const message = uid === undefined ? undefined : await client.fetchOne(String(uid), { source: true }, { uid: true })
    if (!message || !message.source)
      throw new MediaDownloadError('email', `the message ${token.messageId} is no longer in ${options.mailbox}`)
    const mail = await drivers.simpleParser(message.source)
    const content = mail.attachments[token.index]?.content
    if (!content) throw new MediaDownloadError('email', `the message ${token.messageId} has no attachment ${token.index}`)
    if (content.length > options.bytesMax)
      throw new MediaDownloadError('email', `the attachment is over the limit of ${options.bytesMax} bytes`)
    if (createHash('sha256').update(content).digest('hex') !== token.digest)
      throw new MediaDownloadError('email', `attachment ${token.index} of ${token.messageId} is not the one journaled (its digest differs)`)
    return content
  } finally {
    await client.logout().catch(() => client.close())
  }
}
