/**
 * `MessengerProvider`: a Facebook Page on Messenger, over the Graph API (plain HTTPS, no driver).
 * A webhook server (the subscription check, `X-Hub-Signature-256`, 200 only after the journal),
 * Send API messages from the page (text, quick replies, an attachment by URL or uploaded),
 * attachment downloads from Meta's CDNs, and Send API failures as the outbox's error classes.
 */
import { MessagingPlatformProvider, type MessagingProviderOptions } from '../shared/messaging-platform/provider.js'
import { MESSENGER_LIMITS } from './limits.js'
import { MESSENGER_MEDIA_HOSTS } from './media-ref.js'

/** Options of `MessengerProvider`. */
export interface MessengerProviderOptions extends MessagingProviderOptions {
  /** The Page id messages are sent from (and whose webhooks this provider handles). */
  pageId: string
  /** The Graph API root (a proxy, a test double). @default 'https://graph.facebook.com' */
  graphApiRoot?: string
}

/** A Facebook Page on Messenger, as a botmesh provider. */
export class MessengerProvider extends MessagingPlatformProvider {
  readonly name = 'messenger'

  constructor(options: MessengerProviderOptions) {
    super(options, {
      channel: 'messenger',
      object: 'page',
      accountId: options.pageId ?? '',
      apiRoot: options.graphApiRoot ?? 'https://graph.facebook.com',
      mediaHosts: MESSENGER_MEDIA_HOSTS,
      uploads: true,
      ...MESSENGER_LIMITS,
    })
  }
}
