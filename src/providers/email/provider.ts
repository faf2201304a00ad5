/**
 * `EmailProvider`: a mailbox as a channel. Inbound by IMAP (imapflow): unseen mail is handed to
 * the bot and flagged `\Seen` only once journaled. Sends by SMTP (nodemailer), attachments
 * downloaded again by Message-ID, index and digest (mailparser parses). The drivers load only when
 * the provider starts, sends or downloads. Passwords are never logged, journaled or put in an error.
 */
import type { Transporter } from 'nodemailer'
import type { IProvider, InboundSink, MediaRef, OutboundContent, ProviderSendResult } from '../../core/provider/provider.js'
import { ChannelProvider } from '../shared/channel-provider.js'
import { channelCall } from '../shared/channel-call.js'
import { errorReporter, type OnErrorOption } from '../shared/error-reporter.js'
import { MediaDownloadError, ProviderConfigError } from '../shared/errors.js'
import { loadedOnce } from '../shared/once.js'
import { describeError } from '../shared/redact.js'
import { fetchAttachment } from './attachment.js'
import { loadEmailDrivers, type EmailDrivers } from './client.js'
import { smtpError } from './errors.js'
import type { AuthenticationResultsOption } from './inbound-checks.js'
import { EMAIL_LIMITS } from './limits.js'
import { MailboxPoller } from './mailbox.js'
import { emailMediaRefCodec, type EmailMediaToken } from './media-ref.js'
import { sendEmail } from './send.js'

/** A mail server's address and login. */
export interface MailServerOptions {
  /** The server's host name. */
  host: string
  /** Its port: 465 or 587 for SMTP, 993 or 143 for IMAP. */
  port: number
  /** TLS from the start (465, 993); otherwise STARTTLS when the server offers it. */
  secure?: boolean
  /** The login. Never logged. */
  auth: {
    /** The user name. */
    user: string
    /** The password. */
    pass: string
  }
  /** TLS settings beyond the defaults. */
  tls?: {
    /** Refuse a certificate the system's CAs do not vouch for. @default true */
    rejectUnauthorized?: boolean
    /** The name the certificate must carry. @default host */
    servername?: string
  }
}

/** Options of `EmailProvider`. Receive failures (a dropped connection, a journal that refused a message) go to `onError`. */
export interface EmailProviderOptions extends OnErrorOption {
  /** The bot's address: the `From` of its emails; mail from it is not taken as inbound. */
  address: string
  /** The SMTP server the bot sends through. */
  smtp: MailServerOptions
  /** The IMAP server and login of the bot's mailbox. */
  imap: MailServerOptions
  /** The mailbox read. @default 'INBOX' */
  mailbox?: string
  /** The subject of the bot's emails. @default 'Re: your message' */
  subject?: string
  /** How often the mailbox is searched when the server announced nothing. @default EMAIL_LIMITS.pollMs (30 s) */
  pollMs?: number
  /** How long a send the server refused for its rate waits. @default EMAIL_LIMITS.rateLimitRetryAfterMs (60 s) */
  rateLimitRetryAfterMs?: number
  /**
   * The largest inbound message taken, by its `RFC822.SIZE`, asked before the message is fetched;
   * a larger one is flagged `\Seen`, not journaled, and reported (`EmailTooLargeError`).
   * @default EMAIL_LIMITS.messageBytesMax (40 MiB)
   */
  messageBytesMax?: number
  /**
   * Take only mail whose `From:` the receiving server authenticated: the first
   * `Authentication-Results` header of `authservId` must say `dmarc=pass` (for the `From:` domain,
   * when it names one); other mail is flagged `\Seen`, not journaled, and reported
   * (`EmailNotAuthenticatedError`). Off by default: the chat is then the unauthenticated `From:`.
   */
  authenticationResults?: AuthenticationResultsOption
}

/** A mailbox, as a botmesh provider. */
export class EmailProvider extends ChannelProvider<EmailProviderOptions> implements IProvider {
  readonly name = 'email'
  readonly textLimit = EMAIL_LIMITS.textLimit
  readonly session = 'any' as const
  readonly #secrets: string[]
  readonly #load: () => Promise<EmailDrivers> = loadedOnce(loadEmailDrivers)
  readonly #reportError: (error: unknown) => void
  #transport: Transporter | undefined
  #poller: MailboxPoller | undefined

  constructor(options: EmailProviderOptions) {
    if (!/^[^\s@<>]+@[^\s@<>]+$/.test(options.address ?? '')) throw new ProviderConfigError('email', 'address must be an email address')
    for (const key of ['smtp', 'imap'] as const) {
      const server = options[key]
      if (!server?.host || !Number.isInteger(server.port) || !server.auth?.user || typeof server.auth.pass !== 'string')
        throw new ProviderConfigError('email', `${key} needs host, port and auth { user, pass }`)
    }
    if (options.messageBytesMax !== undefined && !(Number.isInteger(options.messageBytesMax) && options.messageBytesMax > 0))
      throw new ProviderConfigError('email', 'messageBytesMax must be a positive integer')
    if (options.authenticationResults && !/^[^\s;]+$/.test(options.authenticationResults.authservId ?? ''))
      throw new ProviderConfigError('email', 'authenticationResults.authservId must be a host name (the authserv-id)')
    super(options, emailMediaRefCodec())
    this.#secrets = [options.smtp.auth.pass, options.imap.auth.pass]
    this.#reportError = errorReporter('email', options, this.#secrets)
  }

  async start(sink: InboundSink): Promise<void> {
    const drivers = await this.#load()
    this.#poller = new MailboxPoller({
      drivers,
      imap: this.options.imap,
      mailbox: this.options.mailbox ?? 'INBOX',
      self: this.options.address,
      pollMs: this.options.pollMs ?? EMAIL_LIMITS.pollMs,
      messageBytesMax: this.options.messageBytesMax ?? EMAIL_LIMITS.messageBytesMax,
      authenticationResults: this.options.authenticationResults,
      sink,
      onError: this.#reportError,
    })
    this.#poller.start()
  }

  async stop(): Promise<void> {
    const poller = this.#poller
    this.#poller = undefined
    await poller?.stop()
    this.#transport?.close()
    this.#transport = undefined
  }

  async send(chatId: string, content: OutboundContent): Promise<ProviderSendResult> {
    const { createTransport } = await this.#load()
    this.#transport ??= createTransport({ ...this.options.smtp })
    const message = { from: this.options.address, to: chatId, subject: this.options.subject ?? 'Re: your message' }
    const transport = this.#transport
    const rateLimitRetryAfterMs = this.options.rateLimitRetryAfterMs ?? EMAIL_LIMITS.rateLimitRetryAfterMs
    const messageId = await channelCall(
      () => sendEmail(transport, message, content),
      (error) => smtpError(error, { secrets: this.#secrets, rateLimitRetryAfterMs }),
    )
    return { messageId }
  }

  /** A live message's attachment as it was parsed; a rebuilt reference's from the mailbox, checked against its digest. */
  async download(media: MediaRef): Promise<Buffer> {
    const token = media.token as Partial<EmailMediaToken> & { content?: unknown }
    if (token?.content instanceof Uint8Array) return Buffer.from(token.content)
    if (typeof token?.messageId !== 'string' || typeof token.index !== 'number' || typeof token.digest !== 'string')
      throw new MediaDownloadError('email', 'the media has no message reference')
    const drivers = await this.#load()
    const options = { imap: this.options.imap, mailbox: this.options.mailbox ?? 'INBOX', bytesMax: EMAIL_LIMITS.downloadBytesMax }
    try {
      return await fetchAttachment(drivers, options, token as EmailMediaToken)
    } catch (error) {
      if (error instanceof MediaDownloadError) throw error
      throw new MediaDownloadError('email', describeError(error, this.#secrets), { retryable: true })
    }
  }
}
