/**
 * `InstagramProvider`: an Instagram professional account's direct messages, over the Instagram
 * Messaging API (plain HTTPS, no driver). A webhook server (the subscription check,
 * `X-Hub-Signature-256`, 200 only after the journal), Send API messages from the account (text,
 * quick replies, an attachment by URL), attachment downloads from Meta's CDNs, and Send API
 * failures as the outbox's error classes.
 */
import { MessagingPlatformProvider, type MessagingProviderOptions } from '../shared/messaging-platform/provider.js'
import { INSTAGRAM_LIMITS } from './limits.js'
import { INSTAGRAM_MEDIA_HOSTS } from './media-ref.js'

/** Options of `InstagramProvider`. */
export interface InstagramProviderOptions extends MessagingProviderOptions {
  /** The Instagram professional account id messages are sent from (and whose webhooks this provider handles). */
  accountId: string
  /**
   * The API root: `https://graph.instagram.com` with an Instagram user access token (Instagram
   * Login), or `https://graph.facebook.com` with the linked Page's token (Facebook Login).
   * @default 'https://graph.instagram.com'
   */
  graphApiRoot?: string
}

/** An Instagram account's direct messages, as a botmesh provider. */
export class InstagramProvider extends MessagingPlatformProvider {
  readonly name = 'instagram'

  constructor(options: InstagramProviderOptions) {
    super(options, {
      channel: 'instagram',
      object: 'instagram',
      accountId: options.accountId ?? '',
      apiRoot: options.graphApiRoot ?? 'https://graph.instagram.com',
      mediaHosts: INSTAGRAM_MEDIA_HOSTS,
      // The Instagram Send API takes attachments by URL only.
      uploads: false,
      ...INSTAGRAM_LIMITS,
    })
  }
}
