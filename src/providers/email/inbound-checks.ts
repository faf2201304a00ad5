/**
 * What the mailbox loop checks of an inbound email before the bot sees it (issue 41 item 7): its
 * size, from the server's `RFC822.SIZE` before a byte of it is fetched (`messageBytesMax`), and,
 * when the operator names the receiving server's authserv-id, that server's
 * `Authentication-Results` saying `dmarc=pass` for the `From:` domain. A refused message is flagged
 * `\Seen` without being journaled, and the refusal goes to `onError`.
 */
import type { ParsedMail } from 'mailparser'
import { PayloadTooLargeError, ProviderError } from '../../core/provider/provider-errors.js'
import { ERROR_CODES } from '../../core/errors/errors.js'

/** The DMARC check: whose `Authentication-Results` header is trusted. */
export interface AuthenticationResultsOption {
  /**
   * The authserv-id of the server that receives the mail and writes `Authentication-Results`
   * (RFC 8601; e.g. `mx.example.com`). Only the first such header with this id is read: that server
   * must remove or rename headers carrying its id that arrive from outside.
   */
  authservId: string
}

/** An inbound email over `messageBytesMax`, refused before it was fetched. Code `PAYLOAD_TOO_LARGE`; final. */
export class EmailTooLargeError extends PayloadTooLargeError {
  /** The message's size as the server reported it. */
  readonly bytes: number
  /** The cap it is over. */
  readonly bytesMax: number
  /** The message's IMAP UID. */
  readonly uid: number
  constructor(uid: number, bytes: number, bytesMax: number) {
    super(`email: message UID ${uid} is ${bytes} bytes, over the limit of ${bytesMax}; flagged \\Seen and not taken`)
    this.bytes = bytes
    this.bytesMax = bytesMax
    this.uid = uid
  }
}

/**
 * An inbound email whose `From:` the receiving server did not authenticate: no
 * `Authentication-Results` of the configured authserv-id with `dmarc=pass` for its domain. Code
 * `CHANNEL_REJECTED`; final.
 */
export class EmailNotAuthenticatedError extends ProviderError {
  /** The message's IMAP UID. */
  readonly uid: number
  constructor(uid: number, detail: string) {
    super(ERROR_CODES.CHANNEL_REJECTED, `email: message UID ${uid} is not authenticated: ${detail}; flagged \\Seen and not taken`, {
      retryable: false,
    })
    this.uid = uid
  }
}

/** Why `mail` fails the DMARC check of `option`, or undefined when it passes. */
export function dmarcProblem(mail: ParsedMail, option: AuthenticationResultsOption): string | undefined {
  const id = option.authservId.toLowerCase()
  const results = mail.headerLines
    .filter((header) => header.key === 'authentication-results')
    .map((header) =>
      header.line
        .replace(/^[^:]*:/, '')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .find((value) => value.split(';')[0]!.trim().split(' ')[0]!.toLowerCase() === id)
  if (!results) return `no Authentication-Results from ${option.authservId}`
  const dmarc = results
    .split(';')
    .slice(1)
    .map((part) => part.trim())
    .find((part) => /^dmarc\s*=/i.test(part))
  if (!dmarc || !/^dmarc\s*=\s*pass\b/i.test(dmarc)) return `dmarc is ${dmarc ? dmarc.split(/\s/)[0] : 'not reported'}`
  const domain = /\bheader\.from\s*=\s*([^\s;]+)/i.exec(dmarc)?.[1]?.toLowerCase()
  const sender = mail.from?.value[0]?.address?.toLowerCase().split('@')[1]
  if (domain && domain !== sender) return `dmarc passed for ${domain}, not the From: domain`
  return undefined
}
