/**
 * `botmesh/providers/email`: a mailbox as a channel (IMAP in with imapflow, SMTP out with
 * nodemailer, mailparser to read; all three optional peer dependencies loaded when the provider
 * starts), and the email media reference (Message-ID + attachment index + digest, plus the IMAP
 * UID and UIDVALIDITY when known).
 *
 * @module botmesh/providers/email
 */
export { EmailProvider, type EmailProviderOptions, type MailServerOptions } from './provider.js'
export { EMAIL_LIMITS } from './limits.js'
export type { AuthenticationResultsOption } from './inbound-checks.js'
export { emailMediaRefCodec, type EmailMediaToken } from './media-ref.js'
export * from '../shared/channel-exports.js'
export type { ChannelApiCode } from '../shared/errors.js'
